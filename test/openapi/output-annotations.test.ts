import { describe, expect, it } from 'vitest';
import { withoutAnnotations } from '../../adapters/openapi/plan-output.js';
import { compileValidator } from '../../src/index.js';

describe('output schemas without annotations', () => {
  const schema = {
    type: 'object',
    title: 'Issue',
    description: 'An issue.',
    properties: {
      // Properties named like annotation keywords are data, not annotations.
      title: { type: 'string', description: 'The title.', examples: ['Bug'] },
      description: { type: ['string', 'null'], deprecated: true },
      state: { enum: [{ description: 'kept: a value' }], default: { title: 'kept' } },
      labels: { type: 'array', items: { $ref: '#/$defs/Label', $comment: 'see Label' } },
    },
    required: ['title', 'state'],
    $defs: {
      Label: {
        type: 'object',
        description: 'A label.',
        properties: { name: { type: 'string', readOnly: true, minLength: 1 } },
        anyOf: [{ required: ['name'], title: 'named' }],
      },
    },
  };

  it('drops every annotation keyword at every depth, keeps names and values, and copies', () => {
    const before = JSON.stringify(schema);
    const stripped = withoutAnnotations(schema);
    expect(JSON.stringify(schema)).toBe(before);
    expect(stripped).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string' },
        description: { type: ['string', 'null'] },
        state: { enum: [{ description: 'kept: a value' }], default: { title: 'kept' } },
        labels: { type: 'array', items: { $ref: '#/$defs/Label' } },
      },
      required: ['title', 'state'],
      $defs: {
        Label: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1 } },
          anyOf: [{ required: ['name'] }],
        },
      },
    });
  });

  it.each([
    { title: 'a', state: { description: 'kept: a value' } },
    { title: 'a', state: { description: 'kept: a value' }, labels: [{ name: 'x' }], description: null },
    { title: 'a' },
    { title: 1, state: { description: 'kept: a value' } },
    { title: 'a', state: { description: 'other' } },
    { title: 'a', state: { description: 'kept: a value' }, labels: [{}] },
    { title: 'a', state: { description: 'kept: a value' }, labels: [{ name: '' }] },
    { title: 'a', state: { description: 'kept: a value' }, description: 3 },
  ])('validates %j exactly as the annotated schema does', (value) => {
    const verdict = (s: Record<string, unknown>) => compileValidator(s)(value).length === 0;
    expect(verdict(withoutAnnotations(schema))).toBe(verdict(schema));
  });
});
