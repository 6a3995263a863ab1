import type { BoundedSchema } from './bound-schema.js';
import { setOwn } from './plain-object.js';
import { countWithin, isSchema, memberCount, membersOf, refName } from './schema-members.js';
import type { JsonSchema } from './tool.js';

/**
 * Where `boundSchema` cuts a schema that does not fit within `max` entries: breadth first, stubs
 * where they only loosen it, whole arguments otherwise (see `boundSchema`). Undefined when the top
 * level alone passes the bound.
 */
export function cutSchema(
  root: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  max: number,
): BoundedSchema | undefined {
  const walked = walkWithin(root, definition, max);
  if (!walked) return undefined;
  return safeStubs(walked) ? copyOut(root, walked, definition, max) : cutArguments(root, definition, max);
}

// One node met by the walk: where it sits (its parent's index and the member it is there, or the
// definition it is), and whether it became a stub.
interface Visit {
  from: JsonSchema;
  parent: number;
  key?: string;
  name?: string | number;
  definition?: string;
}

interface Walk {
  visits: Visit[];
  /** Visits that became stubs, in walk order. */
  stubs: number[];
  /** Each definition listed, by name, at its visit. */
  reached: Map<string, number>;
  /** Each reference kept: the visit holding it and the definition it names. */
  sites: Array<{ holder: number; name: string }>;
}

// The walk again, for a schema that does not fit, recording which nodes become stubs.
function walkWithin(
  root: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  max: number,
): Walk | undefined {
  const walk: Walk = { visits: [{ from: root, parent: -1 }], stubs: [], reached: new Map(), sites: [] };
  const { visits, reached } = walk;
  let used = 1;
  for (let head = 0; head < visits.length; head++) {
    const { from } = visits[head] as Visit;
    const known = refName(from);
    const ref = known !== undefined && !reached.has(known) ? known : undefined;
    const target = ref === undefined ? undefined : definition(ref);
    const count = memberCount(from) + (ref === undefined ? 0 : 1);
    if ((ref !== undefined && target === undefined) || used + count > max) {
      if (head === 0) return undefined;
      walk.stubs.push(head);
      continue;
    }
    used += count;
    for (const { key, name, schema } of membersOf(from).schemas)
      visits.push(
        name === undefined ? { from: schema, parent: head, key } : { from: schema, parent: head, key, name },
      );
    if (known !== undefined) walk.sites.push({ holder: head, name: known });
    if (ref !== undefined && target !== undefined) {
      reached.set(ref, visits.length);
      visits.push({ from: target, parent: -1, definition: ref });
    }
  }
  return walk;
}

// Whether loosening what sits at member `key` of `node` can only loosen `node`.
function monotoneAt(node: JsonSchema, key: string): boolean {
  if (key === 'oneOf' || key === 'not' || key === 'if') return false;
  if (key === 'contains' && node.maxContains !== undefined) return false;
  const readsEvaluated = node.unevaluatedProperties !== undefined || node.unevaluatedItems !== undefined;
  return !(readsEvaluated && IN_PLACE.has(key));
}

// Applicators whose evaluated properties and items `unevaluated*` beside them reads.
const IN_PLACE = new Set([
  'allOf',
  'anyOf',
  'oneOf',
  'if',
  'then',
  'else',
  'not',
  'dependentSchemas',
  '$ref',
]);

// Whether every stub of the walk only loosens the schema: reached from the top, or from a
// definition every reference to which is, through monotone positions only.
function safeStubs({ visits, stubs, sites }: Walk): boolean {
  const monotone: boolean[] = [];
  const anchor: number[] = [];
  visits.forEach((visit, index) => {
    if (visit.parent < 0) {
      monotone[index] = true;
      anchor[index] = index;
      return;
    }
    const parent = visits[visit.parent] as Visit;
    monotone[index] = (monotone[visit.parent] as boolean) && monotoneAt(parent.from, visit.key as string);
    anchor[index] = anchor[visit.parent] as number;
  });
  const definitionOf = (index: number) => (visits[anchor[index] as number] as Visit).definition;
  const unsafe = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const { holder, name } of sites) {
      if (unsafe.has(name)) continue;
      const anchored = definitionOf(holder);
      if (
        !monotone[holder] ||
        !monotoneAt((visits[holder] as Visit).from, '$ref') ||
        (anchored !== undefined && unsafe.has(anchored))
      ) {
        unsafe.add(name);
        changed = true;
      }
    }
  }
  return stubs.every((index) => {
    const anchored = definitionOf(index);
    return monotone[index] && (anchored === undefined || !unsafe.has(anchored));
  });
}

// The walk's result: a copy of each stub's ancestors up to its definition or the top. Everything
// else is shared, not copied (nothing given is modified): a definition whose members all fit is
// listed as it is, even when one it refers to is a stub, since references go by name.
function copyOut(
  root: JsonSchema,
  { visits, stubs, reached }: Walk,
  definition: (name: string) => JsonSchema | undefined,
  max: number,
): BoundedSchema {
  const copies = new Map<number, JsonSchema>([[0, { ...root }]]);
  for (const index of stubs) {
    const visit = visits[index] as Visit;
    copies.set(index, stub(visit.from, visit.definition, definition, max));
    // Up to the definition or the top, copying each ancestor not copied yet.
    for (let child = index; ; ) {
      const { parent, key, name } = visits[child] as Visit;
      if (parent < 0 || key === undefined) break;
      const from = (visits[parent] as Visit).from;
      let copy = copies.get(parent);
      const fresh = copy === undefined;
      if (copy === undefined) {
        copy = { ...from };
        copies.set(parent, copy);
      }
      place(copy, from, key, name, copies.get(child) as JsonSchema);
      if (!fresh) break;
      child = parent;
    }
  }
  const top = copies.get(0) as JsonSchema;
  if (reached.size > 0) {
    const defs: Record<string, JsonSchema> = {};
    for (const [name, index] of [...reached].sort(([a], [b]) => (a < b ? -1 : 1)))
      setOwn(defs, name, copies.get(index) ?? (visits[index] as Visit).from);
    top.$defs = defs;
  }
  return { schema: top, cut: stubs.length };
}

// Where a stub would tighten the schema: each argument is kept whole while it fits, in order, and
// the others are stubs (an argument sits in the top's `properties`, where a looser one only loosens).
function cutArguments(
  root: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  max: number,
): BoundedSchema | undefined {
  const properties = root.properties;
  if (!isSchema(properties)) return undefined;
  const kept = new Set<string>();
  const listed: JsonSchema = {};
  let used = 1 + memberCount(root);
  let cut = 0;
  for (const name in properties) {
    const argument = properties[name] as JsonSchema;
    // The argument itself is counted already, as a member of the top.
    const whole = countWithin(argument, definition, max - used + 1, kept);
    if (whole !== 'over') {
      used += whole.used - 1;
      for (const def of whole.reached) kept.add(def);
      setOwn(listed, name, argument);
    } else {
      setOwn(listed, name, stub(argument, undefined, definition, max));
      cut++;
    }
  }
  const top: JsonSchema = { ...root, properties: listed };
  if (kept.size > 0) {
    const defs: Record<string, JsonSchema> = {};
    for (const name of [...kept].sort()) setOwn(defs, name, definition(name) as JsonSchema);
    top.$defs = defs;
  }
  return { schema: top, cut };
}

// Puts `value` where member `key` (`name`, in a map or list) sits in `copy`, a copy of `from`,
// copying the map or list first the first time.
function place(
  copy: JsonSchema,
  from: JsonSchema,
  key: string,
  name: string | number | undefined,
  value: JsonSchema,
): void {
  if (name === undefined) {
    copy[key] = value;
    return;
  }
  if (copy[key] === from[key]) {
    const holder = from[key];
    copy[key] = Array.isArray(holder) ? [...holder] : { ...(holder as JsonSchema) };
  }
  if (typeof name === 'number') (copy[key] as unknown[])[name] = value;
  else setOwn(copy[key] as JsonSchema, name, value);
}

// Keywords a stub keeps: what the value is and what the spec says of it, none that holds members.
const STUB_KEEPS = ['type', 'format', 'description', 'deprecated', 'default'] as const;

// What a node that does not fit becomes: its type and description, and a note.
function stub(
  from: JsonSchema,
  named: string | undefined,
  definition: (name: string) => JsonSchema | undefined,
  max: number,
): JsonSchema {
  const out: JsonSchema = {};
  for (const key of STUB_KEEPS) {
    const value = from[key];
    if (value === undefined || (key === 'default' && value !== null && typeof value === 'object')) continue;
    out[key] = value;
  }
  const ref = refName(from);
  if (out.type === undefined && ref !== undefined) {
    const type = definition(ref)?.type;
    if (typeof type === 'string') out.type = type;
  }
  // Some clients refuse an array without `items` (the converters always give one).
  if (out.type === 'array' || (Array.isArray(out.type) && out.type.includes('array'))) out.items = {};
  const name = named ?? ref;
  const what = name === undefined ? 'Not listed in full' : `${name}: not listed in full`;
  const note = `(${what}: this tool's input schema stops at ${max.toLocaleString('en-US')} entries; the API checks this value.)`;
  out.description =
    typeof out.description === 'string' && out.description ? `${out.description} ${note}` : note;
  return out;
}
