// Arguments generated from a JSON Schema, for checking that two schemas judge them alike: one
// sample that aims to fit, and mutations of it that a strict schema should refuse. Deterministic
// (seeded), so that a failure can be replayed.

type Schema = Record<string, unknown>;

/** A small seeded generator (mulberry32). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` argument objects for `schema`: samples, then each with one mutation. */
export function sampleArguments(schema: Schema, count: number, rng: () => number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const value = sample(schema, schema, rng, 0);
    out.push(value, mutate(value, rng));
  }
  return out;
}

function resolve(schema: Schema, root: Schema): Schema {
  let current = schema;
  for (let i = 0; i < 10 && typeof current.$ref === 'string'; i++) {
    const name = current.$ref.replace('#/$defs/', '');
    const target = (root.$defs as Record<string, Schema> | undefined)?.[name];
    if (!target) break;
    const { $ref: _, ...rest } = current;
    current = { ...target, ...rest };
  }
  return current;
}

function sample(given: unknown, root: Schema, rng: () => number, depth: number): unknown {
  if (given === true || given === undefined) return 'any';
  if (given === false || given === null || typeof given !== 'object') return null;
  const schema = resolve(given as Schema, root);
  if (depth > 6) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[Math.floor(rng() * schema.enum.length)];
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) {
    return sample(branches[Math.floor(rng() * branches.length)], root, rng, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part) => sample(part, root, rng, depth + 1));
    if (parts.every((part) => part !== null && typeof part === 'object' && !Array.isArray(part))) {
      return Object.assign({}, ...parts);
    }
    return parts[0];
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const type =
    types[Math.floor(rng() * types.length)] ??
    (schema.properties ? 'object' : schema.items ? 'array' : 'string');
  switch (type) {
    case 'object': {
      const object: Record<string, unknown> = {};
      const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      for (const [name, property] of Object.entries(properties)) {
        if (required.has(name) || rng() < 0.5) object[name] = sample(property, root, rng, depth + 1);
      }
      for (const name of required) if (!(name in object)) object[name] = 'x';
      return object;
    }
    case 'array': {
      const length = Math.max(Number(schema.minItems ?? 0), Math.floor(rng() * 3));
      return Array.from({ length }, () => sample(schema.items, root, rng, depth + 1));
    }
    case 'integer':
      return Number(schema.minimum ?? 0) + Math.floor(rng() * 5);
    case 'number':
      return Number(schema.minimum ?? 0) + rng() * 5;
    case 'boolean':
      return rng() < 0.5;
    case 'null':
      return null;
    default:
      return stringFor(schema, rng);
  }
}

function stringFor(schema: Schema, rng: () => number): string {
  switch (schema.format) {
    case 'date-time':
      return '2026-01-02T03:04:05Z';
    case 'date':
      return '2026-01-02';
    case 'uri':
    case 'url':
      return 'https://example.com/a';
    case 'email':
      return 'a@example.com';
    default: {
      const length = Math.max(Number(schema.minLength ?? 0), 1 + Math.floor(rng() * 4));
      return 'abcdefgh'.repeat(4).slice(0, length);
    }
  }
}

// One change somewhere in the value: a wrong type, an unknown key, a missing key, or a null.
function mutate(value: unknown, rng: () => number): unknown {
  const copy = structuredClone(value);
  const containers: Array<Record<string, unknown> | unknown[]> = [];
  const visit = (node: unknown) => {
    if (node !== null && typeof node === 'object') {
      containers.push(node as Record<string, unknown>);
      for (const child of Object.values(node)) visit(child);
    }
  };
  visit(copy);
  const target = containers[Math.floor(rng() * containers.length)];
  if (!target) return rng() < 0.5 ? 12345 : { unexpected: true };
  const keys = Object.keys(target);
  const key = keys[Math.floor(rng() * keys.length)];
  const choice = rng();
  if (Array.isArray(target)) {
    if (key === undefined || choice < 0.3) target.push({ unexpected: [1] });
    else target[Number(key)] = choice < 0.6 ? 'not-what-was-asked' : null;
  } else if (key === undefined || choice < 0.25) target.zz_unexpected = 1;
  else if (choice < 0.5) delete target[key];
  else if (choice < 0.75) target[key] = typeof target[key] === 'string' ? 7 : 'not-what-was-asked';
  else target[key] = null;
  return copy;
}
