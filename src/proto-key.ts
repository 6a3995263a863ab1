import { setOwn } from './plain-object.js';
// A property named `__proto__` is a name like any other in a JSON object (an API may well have
// one), but Ajv leaves it out of `properties` on purpose, so that its generated code never walks
// into prototypes: a schema declaring one could never accept it (`additionalProperties: false`
// refuses it, `required` always misses it). The validator compiles such schemas with the name
// spelled `PROTO_STAND_IN`, and checks arguments with their own `__proto__` keys renamed the same
// way for the duration of the check.

/** What `__proto__` is spelled as while Ajv looks: no JSON API uses a NUL in a property name. */
export const PROTO_STAND_IN = '__proto__\u0000';

/** Whether `schema` names a `__proto__` property anywhere (the only schemas that pay for this). */
export function namesProto(schema: unknown): boolean {
  return JSON.stringify(schema).includes('"__proto__"');
}

/**
 * A copy of `schema` where `__proto__` is spelled `PROTO_STAND_IN` as a property name: the keys of
 * `properties`, `dependentRequired` and `dependentSchemas`, and the names listed in `required` and
 * `dependentRequired`. Data (`enum`, `const`, `default`, `examples`) is left as written.
 */
export function spellProtoKeys(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(spellProtoKeys);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    let next: unknown;
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') next = value;
    else if (key === 'required' && Array.isArray(value)) next = value.map(standIn);
    else if (
      (key === 'properties' || key === 'dependentRequired' || key === 'dependentSchemas') &&
      isMap(value)
    ) {
      const map: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) {
        const spelled = Array.isArray(sub) ? sub.map(standIn) : spellProtoKeys(sub);
        setOwn(map, standIn(name), spelled);
      }
      next = map;
    } else next = spellProtoKeys(value);
    setOwn(out, key, next);
  }
  return out;
}

/**
 * Renames, in place and at any depth, every own key `from` of the objects in `value` to `to`
 * (keeping its value), so arguments can be checked with their `__proto__` keys spelled as the
 * compiled schema spells them, and given back as they came.
 */
export function renameKeys(value: unknown, from: string, to: string): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) renameKeys(item, from, to);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) renameKeys(record[key], from, to);
  if (!Object.hasOwn(record, from)) return;
  // Every key deleted and defined again, in order: the body sent upstream keeps the caller's order.
  const entries = Object.entries(record);
  for (const [key] of entries) delete record[key];
  for (const [key, kept] of entries) setOwn(record, key === from ? to : key, kept);
}

/** The JSON pointer of the first object in `value` (at any depth) with an own key `key`, if any. */
export function pointerToKey(value: unknown, key: string, at = ''): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (!Array.isArray(value) && Object.hasOwn(value, key)) return at;
  for (const [name, item] of Object.entries(value)) {
    const found = pointerToKey(item, key, `${at}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

const standIn = (name: unknown) => (name === '__proto__' ? PROTO_STAND_IN : name) as string;

const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
