import { describe, expect, it } from 'vitest';
import { inlineSingleUse } from '../../adapters/openapi/inline-defs.js';

// Which `$defs` entries take the place of their one reference, and which stay.
describe('inlineSingleUse', () => {
  it('inlines an entry used once, whatever its name needs escaped in a pointer', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/a~1b', description: 'slash' },
        b: { $ref: '#/$defs/with%20space' },
        c: { $ref: '#/$defs/tilde~0' },
      },
      $defs: { 'a/b': { type: 'string' }, 'with space': { type: 'integer' }, 'tilde~': { type: 'boolean' } },
    };
    expect(inlineSingleUse(schema)).toEqual({
      type: 'object',
      properties: {
        a: { type: 'string', description: 'slash' },
        b: { type: 'integer' },
        c: { type: 'boolean' },
      },
    });
  });

  it('keeps shared and recursive entries, and a reference beside a keyword that validates', () => {
    const schema = {
      type: 'object',
      properties: {
        shared1: { $ref: '#/$defs/shared' },
        shared2: { $ref: '#/$defs/shared' },
        tree: { $ref: '#/$defs/tree' },
        bounded: { $ref: '#/$defs/bounded', maxLength: 3 },
        data: { enum: [{ $ref: '#/$defs/bounded' }] },
      },
      $defs: {
        shared: { type: 'string' },
        tree: { type: 'object', properties: { child: { $ref: '#/$defs/tree' } } },
        bounded: { type: 'string' },
      },
    };
    expect(inlineSingleUse(schema)).toEqual(schema);
  });

  it('takes a reference-shaped value under enum, const, default or examples for data', () => {
    const data = { $ref: '#/$defs/a' };
    const schema = {
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/a' },
        b: { enum: [data], const: data, default: data, examples: [data] },
      },
      $defs: { a: { type: 'string' } },
    };
    expect(inlineSingleUse(schema)).toEqual({
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { enum: [data], const: data, default: data, examples: [data] },
      },
    });
  });
});
