// A GraphQL endpoint whose schema makes every root field reach hundreds of input objects: each
// tool lists the first MAX_SCHEMA_ENTRIES entries of its input schema (the input objects converted
// once for all tools, not per tool), says so once, and a call deeper than the listed part still
// reaches the server whole.

import { buildSchema, type GraphQLInputType } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { InputSchemaBuilder } from '../../adapters/graphql/variables-to-json-schema.js';
import { MAX_SCHEMA_ENTRIES } from '../../src/index.js';
import { connect } from '../helpers/connect.js';
import { schemaEntries } from '../helpers/schema-entries.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { graphqlCjs } from './helpers/graphql-cjs.js';
import { type GraphqlServer, startGraphqlServer } from './helpers/graphql-server.js';

const LEVELS = 200;
const FIELDS = 30;
const MUTATIONS = 60;

let server: GraphqlServer;
beforeAll(async () => {
  let sdl = 'type Query { ok: String }\n';
  for (let at = 0; at < LEVELS; at++) {
    const fields = Array.from({ length: FIELDS }, (_, field) => `  f${field}: String`).join('\n');
    sdl += `input In${at} {\n  id: ID!\n${fields}\n${at + 1 < LEVELS ? `  next: In${at + 1}\n` : ''}}\n`;
  }
  sdl += 'type Mutation {\n';
  for (let at = 0; at < MUTATIONS; at++) sdl += `  m${at}(input: In0!, tag: String): String\n`;
  sdl += '}\n';
  server = await startGraphqlServer(graphqlCjs.buildSchema(sdl));
});
afterAll(async () => {
  await server?.[Symbol.asyncDispose]();
});

it('lists each field within the bound, warns once, and passes a deeper input on whole', async () => {
  await using client = await connect('v2', 'stdio', { script: BRIDGE_BIN, args: ['graphql', server.url] });
  const { tools } = await client.listTools();
  const mutations = tools.filter((tool) => /^m\d+$/.test(tool.name));
  expect(mutations).toHaveLength(MUTATIONS);
  for (const tool of mutations) {
    const schema = tool.inputSchema as Record<string, unknown>;
    expect(schemaEntries(schema)).toBeLessThanOrEqual(MAX_SCHEMA_ENTRIES);
    // The arguments and the nearest input objects are listed as they are.
    expect(schema).toMatchObject({
      properties: { input: { $ref: '#/$defs/In0' }, tag: { type: 'string' } },
      required: ['input'],
    });
    expect(
      Object.keys((schema.$defs as Record<string, { properties?: object }>).In0?.properties ?? {}),
    ).toHaveLength(FIELDS + 2);
  }
  const first = mutations[0]?.inputSchema as {
    $defs: Record<string, { description?: string; properties?: object }>;
  };
  const stubs = Object.entries(first.$defs).filter(([, def]) => !def.properties);
  expect(stubs).toHaveLength(1);
  expect(stubs[0]?.[1].description).toContain(
    "not listed in full: this tool's input schema stops at 2,000 entries",
  );

  const warnings = client
    .stderr()
    .split('\n')
    .filter((line) => line.includes('input schema'));
  expect(warnings).toEqual([
    expect.stringContaining(
      `${MUTATIONS} mutation fields m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, and ${MUTATIONS - 10} more: their input schemas list the first 2,000 entries nearest the top`,
    ),
  ]);

  // 100 levels: past the ~60 listed, within what JSON the bridge passes on.
  let input: Record<string, unknown> = { id: 'last', f3: 'deepest' };
  for (let at = 98; at >= 0; at--) input = { id: `level ${at}`, next: input };
  const before = server.requests.length;
  const result = await client.callTool('m7', { input, tag: 't' });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect(server.requests.slice(before).map((request) => request.body.variables)).toEqual([
    { input, tag: 't' },
  ]);
});

it('refuses every tool reaching an input object it cannot serve, whichever is converted first', () => {
  // B was complete, referring to A, when A failed on its long field name: B's tools fail too.
  const long = `x${'y'.repeat(299)}`;
  const schema = buildSchema(`type Query { ok: String } input A { b: B, ${long}: String } input B { a: A }`);
  for (const order of [
    ['A', 'B'],
    ['B', 'A'],
  ]) {
    const builder = new InputSchemaBuilder();
    for (const name of order) {
      const type = schema.getType(name) as GraphQLInputType;
      expect(() => builder.objectSchema([{ name: 'input', type }]), order.join()).toThrow(
        'more than the 256 the bridge serves',
      );
    }
  }
});

it('refuses a tool whose input schema nests deeper than the bridge lists (lists of lists)', () => {
  const deep = `${'['.repeat(140)}String${']'.repeat(140)}`;
  const schema = buildSchema(
    `type Query { ok: String } input In { x: ${deep} } input Shallow { x: [[String]] }`,
  );
  const builder = new InputSchemaBuilder();
  for (const name of ['In', 'Shallow']) {
    const type = schema.getType(name) as GraphQLInputType;
    const convert = () => builder.objectSchema([{ name: 'input', type }]);
    if (name === 'Shallow') expect(convert().schema.$defs).toHaveProperty('Shallow');
    else expect(convert).toThrow('its input schema nests arrays and objects deeper than 128 levels');
  }
});

it('converts each input object once, every tool listing the same definition', () => {
  const schema = buildSchema('type Query { ok: String } input In { a: String, b: [In] }');
  const type = schema.getType('In') as GraphQLInputType;
  const builder = new InputSchemaBuilder();
  const first = builder.objectSchema([{ name: 'one', type }]).schema.$defs as Record<string, unknown>;
  const second = builder.objectSchema([{ name: 'two', type }]).schema.$defs as Record<string, unknown>;
  expect(first.In).toMatchObject({ type: 'object', properties: { a: { type: 'string' } } });
  expect(second.In).toBe(first.In);
});
