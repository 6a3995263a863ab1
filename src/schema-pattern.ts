// JSON Schema writes `pattern` and `patternProperties` keys as ECMA-262 regular expressions with
// the `u` flag: what validators compile, and refuse a whole schema over (`\-`, `\p{Graph}`).

// Big specs repeat the same few patterns across thousands of schemas.
const validity = new Map<string, boolean>();

/** Whether `pattern` compiles as a JSON Schema pattern (a regular expression with the `u` flag). */
export function isSchemaPattern(pattern: string): boolean {
  let valid = validity.get(pattern);
  if (valid === undefined) {
    try {
      new RegExp(pattern, 'u');
      valid = true;
    } catch {
      valid = false;
    }
    validity.set(pattern, valid);
  }
  return valid;
}
