import { BridgeError } from '../../src/index.js';

/** A JSON object of the spec. */
export type Json = Record<string, unknown>;

/** Whether `value` is a plain JSON object. */
export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `target[key] = value`, a key from the spec (`__proto__` included) kept as a member: the core's. */
export { setOwn } from '../../src/index.js';

// Big specs resolve the same few hundred pointers tens of thousands of times.
const resolved = new WeakMap<Json, Map<string, unknown>>();

/** The value a local JSON pointer (`#/components/schemas/Pet`) designates, or `undefined`. */
export function resolvePointer(document: Json, ref: string): unknown {
  let cache = resolved.get(document);
  if (!cache) {
    cache = new Map();
    resolved.set(document, cache);
  }
  if (cache.has(ref)) return cache.get(ref);
  const value = walkPointer(document, ref);
  cache.set(ref, value);
  return value;
}

function walkPointer(document: Json, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  const path = ref.slice(1);
  if (path === '') return document;
  let current: unknown = document;
  for (const raw of path.slice(1).split('/')) {
    const key = decodeSegment(raw);
    if (key === undefined) return undefined;
    if (Array.isArray(current)) current = current[Number(key)];
    // Own properties only: `#/components/schemas/constructor` or `#/__proto__` must point nowhere,
    // not at Object's constructor or prototype.
    else if (isObject(current) && Object.hasOwn(current, key)) current = current[key];
    else return undefined;
  }
  return current;
}

// A pointer segment's name; undefined for a malformed percent escape (`%E0`), which names nothing.
function decodeSegment(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch {
    return undefined;
  }
}

/**
 * Follows `$ref` chains (a parameter that refers to a parameter that refers to …) to the object
 * they end at. Throws a `BridgeError` naming the reference when it leads nowhere or loops.
 */
export function deref<T = Json>(document: Json, value: unknown): T {
  let current = value;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (hops > 32) throw new BridgeError('invalid_input', `$ref loop at ${current.$ref}`);
    const target = resolvePointer(document, current.$ref);
    if (target === undefined) throw new BridgeError('invalid_input', `$ref ${current.$ref} points nowhere`);
    current = target;
  }
  return current as T;
}

/** Finds a converted `$defs` entry by name. */
export type Lookup = (name: string) => Record<string, unknown> | undefined;

/** A converted schema with its top-level `#/$defs/Name` reference followed once. */
export function resolveLocal<T extends Record<string, unknown>>(schema: T, defs: Lookup): T {
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/$defs/')) {
    return (defs(schema.$ref.slice('#/$defs/'.length)) as T | undefined) ?? schema;
  }
  return schema;
}
