/** Whether `value` is an object that is not an array (a JSON object, as parsed). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `target[key] = value` as an own, enumerable data property whatever the key: a key named
 * `__proto__` (from a spec, a schema, a caller) is defined, since assigned it would set the
 * object's prototype instead and the member would vanish.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
