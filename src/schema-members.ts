import { isPlainObject } from './plain-object.js';
import type { JsonSchema } from './tool.js';

// What a JSON Schema holds as members (subschemas, enum values) and how they are counted: shared
// by `boundSchema`'s count and its cut (see bound-schema.ts, cut-schema.ts).

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

// Members of a node: its subschemas and enum values (a large map's counted once: see `largeMaps`).
export function memberCount(node: JsonSchema): number {
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

// The subschemas directly under `node`, and where each sits.
interface Members {
  schemas: Array<{ key: string; name?: string | number; schema: JsonSchema }>;
}

export function membersOf(node: JsonSchema): Members {
  const members: Members = { schemas: [] };
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

export function refName(node: JsonSchema): string | undefined {
  return typeof node.$ref === 'string' ? definitionName(node.$ref) : undefined;
}

// A subschema counted as an entry: an empty one (`{}`, which accepts anything, as a stub's array
// `items` is) says nothing and is not counted, so stubs never add to what was counted.
function isMember(value: unknown): value is JsonSchema {
  if (!isSchema(value)) return false;
  for (const _ in value) return true;
  return false;
}

/** A member that is a schema (an object, not a list): the core's `isPlainObject`, typed for schemas. */
export const isSchema = isPlainObject as (value: unknown) => value is JsonSchema;

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

// Counting only: the names of the definitions reached when everything fits (besides those `known`
// already) and the entries used, else 'over' (the walk then says where it stops). It runs for every tool of every start (GitHub's 1,223 at a first
// start), so a definition's own entries and the definitions it refers to are counted once per
// definition object (`ownTrees`), not once per tool reaching it: the tool's total is its own tree
// and the trees of every definition it reaches, each once, which is what the walk would count.
export function countWithin(
  root: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  max: number,
  known: ReadonlySet<string> = new Set(),
): { reached: string[]; used: number } | 'over' {
  const top = ownTree(root, max - 1);
  if (top === undefined) return 'over';
  let used = 1 + top.count;
  const reached = new Set<string>();
  const queue = [...top.refs];
  for (let head = 0; head < queue.length; head++) {
    const name = queue[head] as string;
    if (reached.has(name) || known.has(name)) continue;
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
  return { reached: [...reached], used };
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
