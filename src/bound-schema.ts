import { listSome } from './list-some.js';
import { clip } from './quote-input.js';
import type { JsonSchema } from './tool.js';

/**
 * Most entries one tool's input schema lists: its subschemas (properties, items, branches, the
 * definitions it reaches) and enum values together. Real APIs stay well inside it (GitHub's REST
 * tools reach 253, Stripe's 944, GitHub's GraphQL mutations ~650), while a small spec or GraphQL
 * schema can make each of thousands of tools reach tens of thousands (a 650 kB spec made a
 * 600 MB tools/list; a 230 kB schema took 2 GB to convert).
 */
export const MAX_SCHEMA_ENTRIES = 2_000;

/** Keys that hold one subschema. */
export const SCHEMA_KEYS = [
  'additionalProperties',
  'items',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
] as const;
/** Keys that hold a list of subschemas. */
export const SCHEMA_LIST_KEYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
/** Keys that hold a map of name → subschema. */
export const SCHEMA_MAP_KEYS = [
  'properties',
  'patternProperties',
  'dependentSchemas',
  '$defs',
  'definitions',
] as const;

/** A tool's input schema within {@link MAX_SCHEMA_ENTRIES}, and how many of its parts were cut. */
export interface BoundedSchema {
  /** The schema, with `$defs` holding the definitions it reaches, by name. */
  schema: JsonSchema;
  /** Parts described by their type and a note instead of in full: 0 when everything fit. */
  cut: number;
}

/**
 * `root` (an object schema without `$defs`) with the definitions it reaches through
 * `#/$defs/NAME` references, listed within `max` entries. Entries are counted breadth first from
 * the top, so what lies nearest the arguments is kept exactly: a part whose members (properties,
 * items, branches, enum values, the definition it refers to) would pass the bound keeps only its
 * type and description, with a note saying so, and accepts any value of that type (the API still
 * checks it). A definition is counted where it is first reached. `definition` looks one up by name;
 * it may build it on demand. Returns undefined when the top level alone (the arguments) passes the
 * bound: such a tool cannot be described.
 *
 * @example boundSchema({ type: 'object', properties: { id: { type: 'string' } } }, (name) => undefined)
 */
export function boundSchema(
  root: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  max: number = MAX_SCHEMA_ENTRIES,
): BoundedSchema | undefined {
  const reached = countWithin(root, definition, max);
  if (reached === 'top') return undefined;
  if (reached !== 'cut') {
    if (reached.length === 0) return { schema: root, cut: 0 };
    const defs: Record<string, JsonSchema> = {};
    for (const name of reached.sort()) defs[name] = definition(name) as JsonSchema;
    return { schema: { ...root, $defs: defs }, cut: 0 };
  }
  return copyWithin(root, definition, max);
}

/**
 * The warning for the tools whose input schemas `boundSchema` cut, naming the first ten (a schema
 * can make thousands of them so); undefined when there are none. `what` names one tool's origin.
 *
 * @example cutSchemasWarning('mutation field', ['createThing'])
 */
export function cutSchemasWarning(what: string, names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  const listed = listSome(names, { most: 10, show: (name) => clip(name), more: (n) => `and ${n} more` });
  const one = names.length === 1;
  return `${one ? `the ${what}` : `${names.length.toLocaleString('en-US')} ${what}s`} ${listed.join(', ')}: ${one ? 'its input schema lists' : 'their input schemas list'} the first ${MAX_SCHEMA_ENTRIES.toLocaleString('en-US')} entries nearest the top (arguments, properties, enum values); deeper parts are described by their type only, and the API checks them`;
}

// The subschemas directly under `node`, and the definition its `$ref` names.
interface Members {
  schemas: Array<{ key: string; name?: string | number; schema: JsonSchema }>;
  values: number;
  ref?: string;
}

function membersOf(node: JsonSchema): Members {
  const members: Members = { schemas: [], values: Array.isArray(node.enum) ? node.enum.length : 0 };
  for (const key in node) {
    const value = node[key];
    if (key === '$ref') {
      if (typeof value === 'string') {
        const name = definitionName(value);
        if (name !== undefined) members.ref = name;
      }
    } else if ((SCHEMA_KEYS as readonly string[]).includes(key)) {
      if (Array.isArray(value)) listed(members, key, value);
      else if (isSchema(value)) members.schemas.push({ key, schema: value });
    } else if ((SCHEMA_LIST_KEYS as readonly string[]).includes(key)) {
      if (Array.isArray(value)) listed(members, key, value);
    } else if ((SCHEMA_MAP_KEYS as readonly string[]).includes(key)) {
      if (isSchema(value))
        for (const name in value) {
          const sub = value[name];
          if (isSchema(sub)) members.schemas.push({ key, name, schema: sub });
        }
    }
  }
  return members;
}

function listed(members: Members, key: string, list: unknown[]): void {
  for (let index = 0; index < list.length; index++) {
    const sub = list[index];
    if (isSchema(sub)) members.schemas.push({ key, name: index, schema: sub });
  }
}

// Counting only: the names of the definitions reached when everything fits, else where it stopped.
// Each node's members are counted before any is queued, stopping at the bound, so a map of a
// million properties costs `max` steps, not a million.
function countWithin(
  root: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  max: number,
): string[] | 'top' | 'cut' {
  const queue: JsonSchema[] = [root];
  const reached = new Set<string>();
  let used = 1;
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] as JsonSchema;
    const fits = countMembers(node, max - used);
    if (fits === undefined) return head === 0 ? 'top' : 'cut';
    const { count, ref } = fits;
    let target: JsonSchema | undefined;
    if (ref !== undefined && !reached.has(ref)) {
      target = definition(ref);
      if (target === undefined || count + 1 > max - used) return head === 0 ? 'top' : 'cut';
    }
    used += count;
    pushMembers(node, queue);
    if (target !== undefined && ref !== undefined) {
      reached.add(ref);
      queue.push(target);
      used++;
    }
  }
  return [...reached];
}

// The number of `node`'s members (subschemas and enum values) if within `room`, and its reference.
function countMembers(node: JsonSchema, room: number): { count: number; ref?: string } | undefined {
  let count = Array.isArray(node.enum) ? node.enum.length : 0;
  let ref: string | undefined;
  for (const key in node) {
    if (count > room) return undefined;
    const value = node[key];
    if (key === '$ref') {
      if (typeof value === 'string') ref = definitionName(value);
    } else if (
      (SCHEMA_KEYS as readonly string[]).includes(key) ||
      (SCHEMA_LIST_KEYS as readonly string[]).includes(key)
    ) {
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length && count <= room; index++)
          if (isSchema(value[index])) count++;
      } else if (isSchema(value) && !(SCHEMA_LIST_KEYS as readonly string[]).includes(key)) count++;
    } else if ((SCHEMA_MAP_KEYS as readonly string[]).includes(key) && isSchema(value)) {
      for (const name in value) {
        if (isSchema(value[name]) && ++count > room) return undefined;
      }
    }
  }
  if (count > room) return undefined;
  return ref === undefined ? { count } : { count, ref };
}

function pushMembers(node: JsonSchema, queue: JsonSchema[]): void {
  for (const key in node) {
    const value = node[key];
    if (
      (SCHEMA_KEYS as readonly string[]).includes(key) ||
      (SCHEMA_LIST_KEYS as readonly string[]).includes(key)
    ) {
      if (Array.isArray(value)) {
        for (const sub of value) if (isSchema(sub)) queue.push(sub);
      } else if (isSchema(value) && !(SCHEMA_LIST_KEYS as readonly string[]).includes(key)) queue.push(value);
    } else if ((SCHEMA_MAP_KEYS as readonly string[]).includes(key) && isSchema(value)) {
      for (const name in value) {
        const sub = value[name];
        if (isSchema(sub)) queue.push(sub);
      }
    }
  }
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

// The second pass, only for a schema that does not fit: the same walk, recording which nodes become
// stubs, then a copy of each stub's ancestors up to its definition or the top. Everything else is
// shared, not copied (nothing given is modified): a definition whose members all fit is listed as
// it is, even when one it refers to is a stub, since references go by name.
function copyWithin(
  root: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  max: number,
): BoundedSchema | undefined {
  const visits: Visit[] = [{ from: root, parent: -1 }];
  const reached = new Map<string, number>();
  const stubs: number[] = [];
  let used = 1;
  for (let head = 0; head < visits.length; head++) {
    const visit = visits[head] as Visit;
    const members = membersOf(visit.from);
    const ref = members.ref !== undefined && !reached.has(members.ref) ? members.ref : undefined;
    const target = ref === undefined ? undefined : definition(ref);
    const count = members.schemas.length + members.values + (ref === undefined ? 0 : 1);
    if ((ref !== undefined && target === undefined) || used + count > max) {
      if (head === 0) return undefined;
      stubs.push(head);
      continue;
    }
    used += count;
    for (const { key, name, schema } of members.schemas)
      visits.push(
        name === undefined ? { from: schema, parent: head, key } : { from: schema, parent: head, key, name },
      );
    if (ref !== undefined && target !== undefined) {
      reached.set(ref, visits.length);
      visits.push({ from: target, parent: -1, definition: ref });
    }
  }

  const copies = new Map<number, JsonSchema>([[0, { ...root }]]);
  for (const index of stubs) {
    const visit = visits[index] as Visit;
    copies.set(index, stub(visit, definition, max));
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
      defs[name] = copies.get(index) ?? (visits[index] as Visit).from;
    top.$defs = defs;
  }
  return { schema: top, cut: stubs.length };
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
  else
    Object.defineProperty(copy[key], name, { value, enumerable: true, writable: true, configurable: true });
}

// Keywords a stub keeps: what the value is and what the spec says of it, none that holds members.
const STUB_KEEPS = ['type', 'format', 'description', 'deprecated', 'default'] as const;

// What a node that does not fit becomes: its type and description, and a note.
function stub(visit: Visit, definition: (name: string) => JsonSchema | undefined, max: number): JsonSchema {
  const { from } = visit;
  const out: JsonSchema = {};
  for (const key of STUB_KEEPS) {
    const value = from[key];
    if (value === undefined || (key === 'default' && value !== null && typeof value === 'object')) continue;
    out[key] = value;
  }
  const ref = typeof from.$ref === 'string' ? definitionName(from.$ref) : undefined;
  const target = ref === undefined ? undefined : definition(ref);
  if (out.type === undefined && typeof target?.type === 'string') out.type = target.type;
  // Some clients refuse an array without `items` (the converters always give one).
  if (out.type === 'array' || (Array.isArray(out.type) && out.type.includes('array'))) out.items = {};
  const name = visit.definition ?? ref;
  const what = name === undefined ? 'Not listed in full' : `${name}: not listed in full`;
  const note = `(${what}: this tool's input schema stops at ${max.toLocaleString('en-US')} entries; the API checks this value.)`;
  out.description =
    typeof out.description === 'string' && out.description ? `${out.description} ${note}` : note;
  return out;
}

function isSchema(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const PREFIX = '#/$defs/';

function definitionName(ref: string): string | undefined {
  if (!ref.startsWith(PREFIX)) return undefined;
  const rest = ref.slice(PREFIX.length);
  if (rest.includes('/')) return undefined;
  if (!rest.includes('%') && !rest.includes('~')) return rest;
  try {
    return decodeURIComponent(rest).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch {
    return undefined;
  }
}
