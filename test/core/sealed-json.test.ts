import { describe, expect, it } from 'vitest';
import { isSealed, sealJson } from '../../src/index.js';

// Cache files carry their own checksum as their last member: the text as written is checked, and a
// damaged byte that still leaves valid JSON is found.
describe('sealed JSON', () => {
  it('is the same JSON with its checksum last, and checks', () => {
    const text = JSON.stringify({ servers: ['https://api.example.com'], n: 1 });
    const sealed = sealJson(text);
    expect(JSON.parse(sealed)).toEqual({
      ...JSON.parse(text),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(Object.keys(JSON.parse(sealed)).at(-1)).toBe('sha256');
    expect(isSealed(sealed)).toBe(true);
    expect(isSealed(sealJson('{}'))).toBe(true);
  });

  it.each([
    ['a byte damaged, still JSON', (s: string) => s.replace('api.example', 'api.exbmple')],
    ['a member added', (s: string) => s.replace('{', '{"x":1,')],
    ['no checksum', () => JSON.stringify({ n: 1 })],
    ['the checksum damaged', (s: string) => s.replace(/"sha256":"./, '"sha256":"g')],
    ['something after the checksum', (s: string) => `${s.slice(0, -1)},"more":1}`],
  ])('does not check with %s', (_, damage) => {
    const sealed = sealJson(JSON.stringify({ servers: ['https://api.example.com'], n: 1 }));
    expect(isSealed(damage(sealed))).toBe(false);
  });
});
