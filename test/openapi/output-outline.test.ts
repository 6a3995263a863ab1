import { describe, expect, it } from 'vitest';
import { OUTPUT_BUDGET, planOutput } from '../../adapters/openapi/plan-output.js';
import { compileValidator } from '../../src/index.js';

// The output schema is an outline of the response schema: the top-level properties and their
// types, as the spec's dialect means them, never stricter than the spec.
const document = {
  components: {
    schemas: {
      Base: { type: 'object', required: ['id'], properties: { id: { type: 'integer', format: 'int64' } } },
      Issue: {
        allOf: [
          { $ref: '#/components/schemas/Base' },
          {
            type: 'object',
            required: ['title', 'state'],
            properties: {
              title: { type: 'string', description: 'The title.', minLength: 1 },
              state: { type: 'string', enum: ['open', 'closed'] },
              body: { type: 'string', nullable: true },
              labels: { type: 'array', items: { $ref: '#/components/schemas/Label' } },
              author: { $ref: '#/components/schemas/User' },
              token: { type: 'string', writeOnly: true },
              reactions: { oneOf: [{ type: 'integer' }, { type: 'object', properties: {} }] },
              anything: { description: 'untyped' },
              loop: { $ref: '#/components/schemas/Loop' },
            },
          },
        ],
      },
      Label: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      User: { type: 'object', nullable: true, properties: { login: { type: 'string' } } },
      Loop: { $ref: '#/components/schemas/Loop' },
      List: { type: 'array', items: { $ref: '#/components/schemas/Issue' } },
      Nullable: { type: 'object', nullable: true, properties: { a: { type: 'string' } } },
    },
  },
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('output schema outlines', () => {
  const outline = planOutput(ref('Issue'), document, 'openapi30');

  it('keep the top-level properties with their types; nothing deeper, no formats, enums or required', () => {
    expect(outline).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer' },
        title: { type: 'string' },
        state: { type: 'string' },
        body: { type: ['string', 'null'] },
        labels: { type: 'array', items: {} },
        author: { type: ['object', 'null'] },
        reactions: { type: ['integer', 'object'] },
        anything: {},
        loop: {},
      },
    });
  });

  it.each([
    [{ id: 1, title: 'a', state: 'open' }, true],
    // Fields the spec requires may be missing; enum values may be new; nested shapes are open.
    [{ title: '' }, true],
    [{ id: 1, state: 'merged', labels: [{}], author: null, reactions: 3, anything: [1] }, true],
    [{ id: 1, extra: { any: 'thing' } }, true],
    [{ id: 'one' }, false],
    [{ body: 3 }, false],
    [{ title: ['a', 'b'] }, false],
    [{ reactions: 'many' }, false],
  ])('judges %j: accepted %s', (value, accepted) => {
    expect(compileValidator(outline ?? {})(value).length === 0).toBe(accepted);
  });

  it('outline a component once per document, and give each tool its own copy', () => {
    const ref = { $ref: '#/components/schemas/Issue' };
    const first = planOutput(ref, document, 'openapi30');
    const second = planOutput({ ...ref }, document, 'openapi30');
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    expect(second?.properties).not.toBe(first?.properties);
    // Another dialect reads the same component its own way: not taken from the other's outline.
    expect(planOutput(ref, document, 'openapi31')).toEqual(first);
    expect(planOutput({ $ref: '#/components/schemas/Missing' }, document, 'openapi30')).toBeUndefined();
  });

  it('only outline objects: arrays, nullable objects and missing schemas get none', () => {
    expect(planOutput(ref('List'), document, 'openapi30')).toBeUndefined();
    expect(planOutput(ref('Nullable'), document, 'openapi30')).toBeUndefined();
    expect(planOutput(ref('Missing'), document, 'openapi30')).toBeUndefined();
    expect(planOutput({ type: 'string' }, document, 'openapi30')).toBeUndefined();
    expect(planOutput({ properties: { a: { type: 'string' } } }, document, 'openapi30')).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
  });

  it('read each dialect: 3.1 type arrays and $ref siblings, Swagger x-nullable', () => {
    const spec31 = { components: { schemas: { Meta: { type: 'object' } } } };
    expect(
      planOutput(
        {
          type: 'object',
          properties: {
            size: { type: ['number', 'null'] },
            meta: { $ref: '#/components/schemas/Meta', description: 'sibling' },
            narrowed: { allOf: [{ type: ['string', 'null'] }, { type: 'string' }] },
            odd: { type: 'file' },
          },
        },
        spec31,
        'openapi31',
      ),
    ).toEqual({
      type: 'object',
      properties: {
        size: { type: ['number', 'null'] },
        meta: { type: 'object' },
        narrowed: { type: 'string' },
        odd: {},
      },
    });
    expect(
      planOutput(
        { type: 'object', properties: { n: { type: 'integer', 'x-nullable': true } } },
        {},
        'swagger2',
      ),
    ).toEqual({ type: 'object', properties: { n: { type: ['integer', 'null'] } } });
  });

  it('keep properties named like Object.prototype members as properties', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}}}',
    );
    const outline = planOutput(schema, {}, 'openapi31') as { properties: object };
    expect(Object.keys(outline.properties)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(outline.properties)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(outline))).toEqual(outline);
    expect(compileValidator(outline)(JSON.parse('{"__proto__": 3}')).length).toBeGreaterThan(0);
  });

  it(`stop adding properties once ${OUTPUT_BUDGET} characters are spent; the rest stay allowed`, () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) properties[`field_${i}`] = { type: 'string' };
    const wide = planOutput({ type: 'object', properties }, {}, 'openapi30');
    const kept = Object.keys((wide?.properties ?? {}) as object);
    expect(kept.length).toBeGreaterThan(10);
    expect(kept.length).toBeLessThan(200);
    expect(kept[0]).toBe('field_0');
    expect(JSON.stringify(wide?.properties).length).toBeLessThanOrEqual(OUTPUT_BUDGET + 2);
    expect(compileValidator(wide ?? {})({ field_199: 'x', field_0: 'y' })).toEqual([]);
  });

  it('stay open, and quick, for components whose members refer back to themselves', () => {
    // Each level multiplies by the members: without a bound, billions of visits (a spec made to hang).
    const ref = { $ref: '#/components/schemas/X' };
    const started = performance.now();
    for (const schema of [
      { type: 'object', allOf: Array(20).fill(ref) },
      { properties: { a: {} }, oneOf: Array(20).fill(ref) },
    ]) {
      const tangled = { components: { schemas: { X: schema } } };
      expect(planOutput(ref, tangled, 'openapi30')).toBeUndefined();
    }
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
