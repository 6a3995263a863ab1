// A tool's input schema is listed within MAX_SCHEMA_ENTRIES: breadth first, what does not fit
// becomes its type and a note, nothing given is modified, and whatever the full schema accepts the
// bounded one accepts too.

import { describe, expect, it } from 'vitest';
import {
  boundSchema,
  compileValidator,
  cutSchemasWarning,
  type JsonSchema,
  MAX_SCHEMA_ENTRIES,
} from '../../src/index.js';
import { schemaEntries as entries } from '../helpers/schema-entries.js';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

const lookup = (defs: Record<string, JsonSchema>) => (name: string) => defs[name];

// `Input0` … `Input{n-1}`: each with `width` string fields and a `next` field referring to the one after.
function chain(n: number, width: number): Record<string, JsonSchema> {
  const defs: Record<string, JsonSchema> = {};
  for (let at = 0; at < n; at++) {
    const properties: Record<string, JsonSchema> = {};
    for (let field = 0; field < width; field++) properties[`f${field}`] = { type: 'string' };
    if (at + 1 < n) properties.next = { $ref: `#/$defs/Input${at + 1}` };
    defs[`Input${at}`] = { type: 'object', properties, additionalProperties: false, required: ['f0'] };
  }
  return deepFreeze(defs);
}

const tool = (properties: Record<string, JsonSchema>): JsonSchema =>
  deepFreeze({ type: 'object', properties, additionalProperties: false });

describe('boundSchema', () => {
  it('returns a schema that fits as it is, with the definitions it reaches, sorted by name', () => {
    const defs = deepFreeze({
      B: { type: 'object', properties: { a: { $ref: '#/$defs/A' } } },
      A: { type: 'string', enum: ['x', 'y'] },
      Unused: { type: 'number' },
    });
    const root = tool({ b: { $ref: '#/$defs/B' }, n: { type: 'integer' } });
    const bounded = boundSchema(root, lookup(defs));
    if (!bounded) throw new Error('not served');
    expect(bounded.cut).toBe(0);
    expect(bounded.schema).toEqual({ ...root, $defs: { A: defs.A, B: defs.B } });
    expect(Object.keys(bounded.schema.$defs as object)).toEqual(['A', 'B']);
    expect((bounded.schema.$defs as Record<string, unknown>).B).toBe(defs.B);

    const plain = tool({ n: { type: 'integer' } });
    expect(boundSchema(plain, () => undefined)?.schema).toBe(plain);
  });

  it('keeps the entries nearest the arguments and describes the rest by type, within the bound', () => {
    const defs = chain(300, 40);
    const root = tool({ input: { $ref: '#/$defs/Input0' }, limit: { type: 'integer', minimum: 1 } });
    const bounded = boundSchema(root, lookup(defs));
    if (!bounded) throw new Error('not served');
    expect(bounded.cut).toBe(1);
    expect(entries(bounded.schema)).toBeLessThanOrEqual(MAX_SCHEMA_ENTRIES);
    const listed = bounded.schema.$defs as Record<string, JsonSchema>;
    // 2,000 entries: the top (3), then 41 per definition plus its reference.
    expect(Object.keys(listed)).toHaveLength(48);
    // Whole definitions are shared, not copied; the last reached is a stub.
    expect(listed.Input0).toBe(defs.Input0);
    expect(listed.Input46).toBe(defs.Input46);
    expect(listed.Input47).toEqual({
      type: 'object',
      description:
        "(Input47: not listed in full: this tool's input schema stops at 2,000 entries; the API checks this value.)",
    });
    expect(bounded.schema.properties).toBe(root.properties);
    expect(cutSchemasWarning('mutation field', ['deep'])).toBe(
      'the mutation field deep: its input schema lists the first 2,000 entries nearest the top (arguments, properties, enum values); deeper parts are described by their type only, and the API checks them',
    );
  });

  it('accepts everything the full schema accepts, and refuses at the top what it refused', () => {
    const defs = chain(80, 30);
    const root = tool({ input: { $ref: '#/$defs/Input0' } });
    const full = compileValidator({ ...root, $defs: defs });
    const bounded = boundSchema(root, lookup(defs));
    if (!bounded) throw new Error('not served');
    const validate = compileValidator(bounded.schema);
    // A value nesting through every definition, each level with its required field.
    let value: Record<string, unknown> = { f0: 'last' };
    for (let at = 78; at >= 0; at--) value = { f0: `level ${at}`, f3: 'x', next: value };
    expect(full({ input: value })).toEqual([]);
    expect(validate({ input: value })).toEqual([]);
    // What stays listed is still checked.
    expect(validate({ input: { f0: 1 } })).not.toEqual([]);
    expect(validate({ input: { f1: 'no f0' } })).not.toEqual([]);
    expect(validate({ other: 1 })).not.toEqual([]);
  });

  it('describes an enum too long to list by its type, and copies only what leads to a stub', () => {
    const values = Array.from({ length: 5_000 }, (_, at) => `V${at}`);
    const root = tool({
      kind: { type: 'string', enum: values, description: 'The kind.', default: 'V1' },
      nested: { type: 'object', properties: { deep: { type: 'string', enum: values } } },
      plain: { type: 'boolean' },
    });
    const bounded = boundSchema(root, () => undefined);
    if (!bounded) throw new Error('not served');
    const properties = bounded.schema.properties as Record<string, JsonSchema>;
    expect(properties.kind).toEqual({
      type: 'string',
      description:
        "The kind. (Not listed in full: this tool's input schema stops at 2,000 entries; the API checks this value.)",
      default: 'V1',
    });
    expect(at(properties, 'nested.properties.deep.enum')).toBeUndefined();
    expect(properties.plain).toBe((root.properties as Record<string, JsonSchema>).plain);
    expect(bounded.cut).toBe(2);
  });

  it('cuts whole arguments where a stub would refuse what the full schema accepts', () => {
    // A's 2,500 enum values pass the bound: a stub of A would be any object.
    const values = Array.from({ length: 2_500 }, (_, at) => ({ w1: `v${at}` }));
    const defs = deepFreeze({
      A: {
        type: 'object',
        properties: { w1: { type: 'string' } },
        additionalProperties: false,
        enum: values,
      },
      B: { type: 'object', properties: { kind: { const: 'b' } }, required: ['kind'] },
    });
    const cases: Array<[string, JsonSchema, unknown]> = [
      // A stub of A, an object like B, would match B's values too: `oneOf` would refuse them.
      ['oneOf', { oneOf: [{ $ref: '#/$defs/A' }, { $ref: '#/$defs/B' }] }, { kind: 'b' }],
      ['not', { type: 'object', not: { $ref: '#/$defs/A' } }, { w1: 'other' }],
      // JSON Schema's `then`, written from JSON: an object literal with a `then` member reads as a thenable.
      ['if', JSON.parse('{"if": {"$ref": "#/$defs/A"}, "then": {"required": ["w2"]}}'), { w1: 'other' }],
      [
        'unevaluatedProperties',
        { allOf: [{ $ref: '#/$defs/A' }], unevaluatedProperties: false },
        { w1: 'v1' },
      ],
    ];
    for (const [what, body, value] of cases) {
      const root = tool({ body, small: { type: 'integer' } });
      const full = compileValidator({ ...root, $defs: defs });
      expect(full({ body: value, small: 1 }), what).toEqual([]);
      const bounded = boundSchema(root, lookup(defs));
      if (!bounded) throw new Error('not served');
      expect(entries(bounded.schema), what).toBeLessThanOrEqual(MAX_SCHEMA_ENTRIES);
      expect(compileValidator(bounded.schema)({ body: value, small: 1 }), what).toEqual([]);
      // The argument that fits is kept whole, and still checked.
      expect(at(bounded.schema, 'properties.small'), what).toEqual({ type: 'integer' });
      expect(compileValidator(bounded.schema)({ body: value, small: 'x' }), what).not.toEqual([]);
      expect(String(at(bounded.schema, 'properties.body.description')), what).toMatch(/not listed in full/i);
    }
  });

  it('lists each member of a shared map once however many tools reach it', () => {
    let listings = 0;
    const wide: Record<string, JsonSchema> = {};
    for (let at = 0; at < 50_000; at++) wide[`w${at}`] = { type: 'string' };
    const counted = new Proxy(wide, {
      ownKeys(target) {
        listings++;
        return Reflect.ownKeys(target);
      },
    });
    const defs = { Wide: { type: 'object', properties: counted } };
    for (let at = 0; at < 20; at++) {
      const bounded = boundSchema(tool({ [`a${at}`]: { $ref: '#/$defs/Wide' } }), lookup(defs));
      expect(bounded?.cut).toBe(1);
    }
    expect(listings).toBe(1);
  });

  it('lists a definition named __proto__ as a definition', () => {
    const defs = JSON.parse('{"__proto__": {"type": "object", "properties": {"n": {"type": "integer"}}}}');
    const bounded = boundSchema(tool({ p: { $ref: '#/$defs/__proto__' } }), lookup(defs));
    const listed = bounded?.schema.$defs as Record<string, JsonSchema>;
    expect(Object.keys(listed)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(listed)).toBe(Object.prototype);
    const validate = compileValidator(bounded?.schema as JsonSchema);
    expect(validate({ p: { n: 1 } })).toEqual([]);
    expect(validate({ p: { n: 'x' } })).not.toEqual([]);
  });

  it('gives an array it cuts items that accept anything, as some clients require', () => {
    const root = tool({
      tags: { type: 'array', items: { type: 'string', minLength: 2 } },
      n: { type: 'number' },
    });
    const bounded = boundSchema(root, () => undefined, 3);
    expect(entries(bounded?.schema as JsonSchema)).toBeLessThanOrEqual(3);
    expect(at(bounded?.schema, 'properties.tags')).toEqual({
      type: 'array',
      items: {},
      description:
        "(Not listed in full: this tool's input schema stops at 3 entries; the API checks this value.)",
    });
    expect(compileValidator(bounded?.schema as JsonSchema)({ tags: ['a'], n: 1 })).toEqual([]);
  });

  it('serves nothing when the arguments alone pass the bound', () => {
    const properties: Record<string, JsonSchema> = {};
    for (let at = 0; at < 1_000_000; at++) properties[`a${at}`] = { type: 'string' };
    expect(boundSchema({ type: 'object', properties }, () => undefined)).toBeUndefined();
  });

  it('follows a recursive definition once, and treats a missing one as a stub', () => {
    const defs = deepFreeze({
      Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' }, id: { type: 'string' } } },
    });
    const recursive = boundSchema(tool({ root: { $ref: '#/$defs/Node' } }), lookup(defs));
    expect(recursive?.cut).toBe(0);
    expect(recursive?.schema.$defs).toEqual(defs);

    const missing = boundSchema(
      tool({ gone: { $ref: '#/$defs/Gone', description: 'Was here.' } }),
      () => undefined,
    );
    expect(missing?.cut).toBe(1);
    expect(at(missing?.schema, 'properties.gone.description')).toContain(
      'Was here. (Gone: not listed in full',
    );
    expect(at(missing?.schema, 'properties.gone.$ref')).toBeUndefined();
  });

  it('keeps a property named __proto__ as a property when it copies the map holding it', () => {
    const values = Array.from({ length: 3_000 }, (_, at) => at);
    const properties = JSON.parse(
      `{"__proto__": {"type": "integer", "enum": ${JSON.stringify(values)}}, "ok": {"type": "string"}}`,
    );
    const bounded = boundSchema(tool(properties), () => undefined);
    const listed = bounded?.schema.properties as Record<string, JsonSchema>;
    expect(Object.keys(listed)).toEqual(['__proto__', 'ok']);
    expect(Object.getPrototypeOf(listed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(listed, '__proto__')?.value).toMatchObject({ type: 'integer' });
  });
});

function at(value: unknown, path: string): unknown {
  let node = value;
  for (const key of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[key];
  return node;
}
