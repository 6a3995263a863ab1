import { buildSchema, type GraphQLNamedType, getNamedType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildBoundedSelection, buildSelection } from '../../adapters/graphql/build-selection.js';

// A generated selection looks at fields whether or not it takes them: a type whose thousands of
// fields all lead back to it, none with a scalar the build may take, made every sub-selection
// come back empty and the build look at F² fields (F^(depth+1) deeper). 8,000 fields took 49 s of
// one call's build, every other call of the bridge waiting. The bytes never bounded that work.
const fields = (count: number) => Array.from({ length: count }, (_, n) => `f${n}: T`).join(' ');
const hostile = buildSchema(`
  type T { ${fields(8_000)} x(a: Int!): String }
  union U = T | V
  type V { ${fields(2_000).replaceAll(': T', ': V')} y(a: Int!): String }
  type Query { t: T u: U }
`);
const rootType = (name: string) =>
  getNamedType(hostile.getQueryType()?.getFields()[name]?.type ?? null) as GraphQLNamedType;

describe('a generated selection over a schema built to waste work', () => {
  it.each([1, 3, 10])('finds nothing to select at depth %i, within a bound of work', (depth) => {
    const built = buildBoundedSelection(hostile, rootType('t'), { depth, breadth: 200 });
    expect(built).toEqual({ selection: '', dropped: [] });
  });

  it('bounds the union members matched against each other as well', () => {
    expect(buildSelection(hostile, rootType('u'), { depth: 10, breadth: 200 })).toBe('{ __typename }');
  });

  it('still selects what a schema offers past types of no use', () => {
    const schema = buildSchema(`
      type T { ${fields(3_000)} x(a: Int!): String }
      type Item { id: ID! name: String loop: T }
      type Query { item: Item }
    `);
    const item = getNamedType(schema.getQueryType()?.getFields().item?.type ?? null) as GraphQLNamedType;
    expect(buildSelection(schema, item, { depth: 3, breadth: 10 })).toBe('{ id name }');
  });
});
