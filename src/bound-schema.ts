import { listSome } from './list-some.js';
import { clip } from './quote-input.js';
import type { JsonSchema } from './tool.js';

/**
 * Most entries one tool's input schema lists: its subschemas (properties, items, branches, the
 * definitions it reaches; an empty `{}` is not counted) and enum values together. Real APIs stay well inside it (GitHub's REST
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
 * it may build it on demand, and what it throws is thrown.
 *
 * A looser part makes the whole looser only where nothing inverts it: under `oneOf`, `not` or
 * `if`, beside `unevaluatedProperties`/`unevaluatedItems` (which read what in-place parts
 * evaluated) or `maxContains`, a stub could refuse what the full schema accepted. When a cut falls
 * there, whole arguments are cut instead, the first that fit kept as they are. Returns undefined
 * when the top level alone (the arguments) passes the bound: such a tool cannot be described.
 *
 * @example boundSchema({ type: 'object', properties: { id: { type: 'string' } } }, (name) => undefined)
 */
export function boundSchema(
  root: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  max: number = MAX_SCHEMA_ENTRIES,
): BoundedSchema | undefined {
  const reached = countWithin(root, definition, max);
  if (reached !== 'over') {
    if (reached.length === 0) return { schema: root, cut: 0 };
    const defs: Record<string, JsonSchema> = {};
    for (const name of reached.sort()) setEntry(defs, name, definition(name) as JsonSchema);
    return { schema: { ...root, $defs: defs }, cut: 0 };
  }
  const walked = walkWithin(root, definition, max);
  if (!walked) return undefined;
  return safeStubs(walked) ? copyOut(root, walked, definition, max) : cutArguments(root, definition, max);
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

// Members of a node: its subschemas and enum values (a large map's counted once: see `largeMaps`).
function memberCount(node: JsonSchema): number {
  let count = 0;
  for (const key in node) {
    const kind = KINDS.get(key);
    const value = node[key];
    if (kind === undefined) {
      if (key === 'enum' && Array.isArray(value)) count += value.length;
    } else if (Array.isArray(value)) {
      if (kind === LIST || kind === TUPLE) for (const sub of value) if (isMember(sub)) count++;
    } else if (isSchema(value)) {
      if (kind === MAP) count += mapSize(value);
      else if (kind !== LIST && isMember(value)) count++;
    }
  }
  return count;
}

function mapSize(map: JsonSchema): number {
  let size = largeMaps.get(map);
  if (size === undefined) {
    size = 0;
    for (const name in map) if (isMember(map[name])) size++;
    if (size >= LARGE_MAP) largeMaps.set(map, size);
  }
  return size;
}

// The subschemas directly under `node`, where each sits, and the definition its `$ref` names.
interface Members {
  schemas: Array<{ key: string; name?: string | number; schema: JsonSchema }>;
  ref?: string;
}

function membersOf(node: JsonSchema): Members {
  const members: Members = { schemas: [] };
  const ref = refName(node);
  if (ref !== undefined) members.ref = ref;
  for (const key in node) {
    const kind = KINDS.get(key);
    const value = node[key];
    if (kind === undefined) continue;
    if (Array.isArray(value)) {
      if (kind !== LIST && kind !== TUPLE) continue;
      for (let index = 0; index < value.length; index++) {
        const sub = value[index];
        if (isMember(sub)) members.schemas.push({ key, name: index, schema: sub });
      }
    } else if (isSchema(value)) {
      if (kind === MAP) {
        for (const name in value) {
          const sub = value[name];
          if (isMember(sub)) members.schemas.push({ key, name, schema: sub });
        }
      } else if (kind !== LIST && isMember(value)) members.schemas.push({ key, schema: value });
    }
  }
  return members;
}

function refName(node: JsonSchema): string | undefined {
  return typeof node.$ref === 'string' ? definitionName(node.$ref) : undefined;
}

// Counting only: the names of the definitions reached when everything fits, else 'over' (the walk
// then says where it stops). It runs for every tool of every start (GitHub's 1,223 at a first
// start), so a definition's own entries and the definitions it refers to are counted once per
// definition object (`ownTrees`), not once per tool reaching it: the tool's total is its own tree
// and the trees of every definition it reaches, each once, which is what the walk would count.
function countWithin(
  root: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  max: number,
): string[] | 'over' {
  const top = ownTree(root, max - 1);
  if (top === undefined) return 'over';
  let used = 1 + top.count;
  const reached = new Set<string>();
  const queue = [...top.refs];
  for (let head = 0; head < queue.length; head++) {
    const name = queue[head] as string;
    if (reached.has(name)) continue;
    const target = definition(name);
    if (target === undefined) return 'over';
    let tree = ownTrees.get(target);
    if (tree === undefined) {
      tree = ownTree(target, Number.POSITIVE_INFINITY) as OwnTree;
      ownTrees.set(target, tree);
    }
    used += 1 + tree.count;
    if (used > max) return 'over';
    reached.add(name);
    for (const ref of tree.refs) if (!reached.has(ref)) queue.push(ref);
  }
  return [...reached];
}

// A node's tree without following references: its entries below it, and the definitions it names.
interface OwnTree {
  count: number;
  refs: string[];
}

const ownTrees = new WeakMap<object, OwnTree>();

// One pass over each node's keys, queueing members as it counts them and giving up past `limit`; a
// map found large is not listed again (see `largeMaps`).
function ownTree(node: JsonSchema, limit: number): OwnTree | undefined {
  const queue: JsonSchema[] = [node];
  const refs: string[] = [];
  let count = 0;
  for (let head = 0; head < queue.length; head++) {
    const from = queue[head] as JsonSchema;
    for (const key in from) {
      const kind = KINDS.get(key);
      const value = from[key];
      if (kind === undefined) {
        if (key === '$ref' && typeof value === 'string') {
          const name = definitionName(value);
          if (name !== undefined) refs.push(name);
        } else if (key === 'enum' && Array.isArray(value)) count += value.length;
      } else if (Array.isArray(value)) {
        if (kind === LIST || kind === TUPLE)
          for (const sub of value) if (isMember(sub) && ++count <= limit) queue.push(sub);
      } else if (isSchema(value)) {
        if (kind === MAP) {
          const large = largeMaps.get(value);
          if (large !== undefined && count + large > limit) return undefined;
          let size = 0;
          for (const name in value) {
            const sub = value[name];
            if (isMember(sub)) {
              size++;
              if (count + size <= limit) queue.push(sub);
            }
          }
          if (size >= LARGE_MAP) largeMaps.set(value, size);
          count += size;
        } else if (kind !== LIST && isMember(value) && ++count <= limit) queue.push(value);
      }
      if (count > limit) return undefined;
    }
  }
  return { count, refs };
}

// How each keyword holds members: one subschema, a list, a map, or either (`items`, which may be
// a draft-4 tuple).
const SINGLE = 1;
const LIST = 2;
const MAP = 3;
const TUPLE = 4;
const KINDS = new Map<string, number>([
  ...SCHEMA_KEYS.map((key): [string, number] => [
    key,
    key === 'items' || key === 'additionalItems' ? TUPLE : SINGLE,
  ]),
  ...SCHEMA_LIST_KEYS.map((key): [string, number] => [key, LIST]),
  ...SCHEMA_MAP_KEYS.map((key): [string, number] => [key, MAP]),
]);

// Maps of at least `LARGE_MAP` members, by their size: listing a map's keys costs its whole size
// however early the loop stops, and one reached by many tools would be listed for each.
const largeMaps = new WeakMap<object, number>();
const LARGE_MAP = 256;

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
      setEntry(defs, name, copies.get(index) ?? (visits[index] as Visit).from);
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
  const kept = new Map<string, JsonSchema>();
  const listed: JsonSchema = {};
  let used = 1 + memberCount(root);
  let cut = 0;
  for (const name in properties) {
    const argument = properties[name] as JsonSchema;
    const whole = wholeSize(argument, definition, kept, max - used);
    if (whole) {
      used += whole.size;
      for (const [def, schema] of whole.reached) kept.set(def, schema);
      setEntry(listed, name, argument);
    } else {
      setEntry(listed, name, stub(argument, undefined, definition, max));
      cut++;
    }
  }
  const top: JsonSchema = { ...root, properties: listed };
  if (kept.size > 0) {
    const defs: Record<string, JsonSchema> = {};
    for (const [name, schema] of [...kept].sort(([a], [b]) => (a < b ? -1 : 1))) setEntry(defs, name, schema);
    top.$defs = defs;
  }
  return { schema: top, cut };
}

// The entries under `node` and the definitions it reaches besides those `kept`, if within `room`.
function wholeSize(
  node: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  kept: ReadonlyMap<string, JsonSchema>,
  room: number,
): { size: number; reached: Map<string, JsonSchema> } | undefined {
  const reached = new Map<string, JsonSchema>();
  const queue: JsonSchema[] = [node];
  let size = 0;
  for (let head = 0; head < queue.length; head++) {
    const from = queue[head] as JsonSchema;
    size += memberCount(from);
    if (size > room) return undefined;
    for (const member of membersOf(from).schemas) queue.push(member.schema);
    const ref = refName(from);
    if (ref === undefined || kept.has(ref) || reached.has(ref)) continue;
    const target = definition(ref);
    if (target === undefined || ++size > room) return undefined;
    reached.set(ref, target);
    queue.push(target);
  }
  return { size, reached };
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
  else setEntry(copy[key] as JsonSchema, name, value);
}

// A member set as an own property whatever its name (`__proto__` included).
function setEntry(map: JsonSchema, name: string, value: unknown): void {
  Object.defineProperty(map, name, { value, enumerable: true, writable: true, configurable: true });
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

// A subschema counted as an entry: an empty one (`{}`, which accepts anything, as a stub's array
// `items` is) says nothing and is not counted, so stubs never add to what was counted.
function isMember(value: unknown): value is JsonSchema {
  if (!isSchema(value)) return false;
  for (const _ in value) return true;
  return false;
}

function isSchema(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const PREFIX = '#/$defs/';

/**
 * The `$defs` entry a local reference names (`#/$defs/NAME`, the name percent- and
 * pointer-decoded); undefined for any other reference.
 *
 * @example definitionName('#/$defs/Pet') // 'Pet'
 */
export function definitionName(ref: string): string | undefined {
  if (!ref.startsWith(PREFIX)) return undefined;
  const rest = ref.slice(PREFIX.length);
  if (rest.includes('/')) return undefined;
  // Most names need no decoding (none of GitHub's component names does).
  if (!rest.includes('%') && !rest.includes('~')) return rest;
  try {
    return decodeURIComponent(rest).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch {
    return undefined;
  }
}
