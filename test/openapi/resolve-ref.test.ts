import { describe, expect, it } from 'vitest';
import { deref, resolvePointer } from '../../adapters/openapi/resolve-ref.js';

// A spec's `$ref`s are its author's text: a pointer names the document's own members, never what
// a JavaScript object inherits, and a malformed one points nowhere rather than throwing.
describe('resolvePointer', () => {
  const document = JSON.parse(
    '{"components": {"schemas": {"Pet": {"type": "object"}, "__proto__": {"type": "string"}}}}',
  ) as Record<string, unknown>;

  it('follows own members, a `__proto__` one included', () => {
    expect(resolvePointer(document, '#/components/schemas/Pet')).toEqual({ type: 'object' });
    expect(resolvePointer(document, '#/components/schemas/__proto__')).toEqual({ type: 'string' });
  });

  it.each([
    '#/components/schemas/constructor',
    '#/components/schemas/toString',
    '#/constructor/prototype',
    '#/components/schemas/%E0',
  ])('%s points nowhere', (ref) => {
    expect(resolvePointer(document, ref)).toBeUndefined();
    expect(() => deref(document, { $ref: ref })).toThrow(/points nowhere/);
  });
});
