import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addMocksToSchema } from '@graphql-tools/mock';
import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  buildClientSchema,
  buildSchema,
  type GraphQLSchema,
  getNamedType,
  isScalarType,
  parse,
  print,
  specifiedScalarTypes,
  validate,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildBoundedSelection,
  buildSelection,
  MAX_SELECTION_BYTES,
} from '../../adapters/graphql/build-selection.js';
import { fieldDocument, parseSelectionSet } from '../../adapters/graphql/field-document.js';
import { createGraphqlSource } from '../../adapters/graphql/index.js';
import { compileValidator } from '../../src/index.js';
import { type GraphqlServer, startGraphqlServer } from './helpers/graphql-server.js';
import { at, firstText, type LoadedTools, loadTools } from './helpers/in-process.js';

// GitHub's real public schema (from @octokit/graphql-schema), served with mocked resolvers.
// The package exports only its index; its files sit beside the resolved entry point.
const PACKAGE_DIR = dirname(fileURLToPath(import.meta.resolve('@octokit/graphql-schema')));
const SDL_PATH = join(PACKAGE_DIR, 'schema.graphql');
const JSON_PATH = join(PACKAGE_DIR, 'schema.json');

let schema: GraphQLSchema;
let server: GraphqlServer;
let github: LoadedTools;

function mockedGithub(): GraphQLSchema {
  const builtIn = new Set(specifiedScalarTypes.map((type) => type.name));
  const mocks: Record<string, () => unknown> = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (isScalarType(type) && !builtIn.has(type.name)) mocks[type.name] = () => `mock ${type.name}`;
  }
  // Built by @graphql-tools (which loads graphql-js as CommonJS, like graphql-http): a schema object
  // must not cross from this file's ESM copy of graphql-js into theirs.
  const executable = makeExecutableSchema({ typeDefs: readFileSync(SDL_PATH, 'utf8'), assumeValidSDL: true });
  return addMocksToSchema({ schema: executable, mocks });
}

beforeAll(async () => {
  // The same schema the server serves (its SDL defines a few fields twice, hence assumeValidSDL).
  schema = buildSchema(readFileSync(SDL_PATH, 'utf8'), { assumeValidSDL: true });
  server = await startGraphqlServer(mockedGithub());
  github = await loadTools(createGraphqlSource({ endpoint: server.url, generic: true }, process.cwd()));
}, 60_000);
afterAll(async () => {
  await server?.[Symbol.asyncDispose]();
});

describe('GitHub’s schema, introspected from a mocked server', () => {
  it('offers one tool per root Query and Mutation field plus the three generic tools', () => {
    const queries = Object.keys(schema.getQueryType()?.getFields() ?? {});
    const mutations = Object.keys(schema.getMutationType()?.getFields() ?? {});
    expect(queries.length).toBeGreaterThan(20);
    expect(mutations.length).toBeGreaterThan(200);
    expect(github.registry.tools).toHaveLength(queries.length + mutations.length + 3);
    expect(github.registry.get('repository')?.definition.annotations.readOnlyHint).toBe(true);
    expect(github.registry.get('deleteIssue')?.definition.annotations.destructiveHint).toBe(true);
    expect(github.registry.get('createIssue')?.definition.annotations.destructiveHint).toBe(false);
  });

  it('gives every tool an input schema that compiles as JSON Schema 2020-12, names within 64 chars', () => {
    for (const tool of github.registry.tools) {
      expect(tool.name.length).toBeLessThanOrEqual(64);
      expect(() => compileValidator(tool.definition.inputSchema), tool.name).not.toThrow();
      for (const key of Object.keys(tool.definition.annotations)) expect(typeof key).toBe('string');
    }
  });

  it('generates a document that validates against the schema for every root field, at several budgets', () => {
    const failures: string[] = [];
    for (const budget of [
      { depth: 0, breadth: 5 },
      { depth: 1, breadth: 15 },
      { depth: 2, breadth: 8 },
    ]) {
      for (const kind of ['query', 'mutation'] as const) {
        const root = kind === 'query' ? schema.getQueryType() : schema.getMutationType();
        for (const field of Object.values(root?.getFields() ?? {})) {
          const built = buildSelection(schema, getNamedType(field.type), budget);
          const selection = built || (isScalarType(getNamedType(field.type)) ? '' : '{ __typename }');
          const document = fieldDocument(
            kind,
            field,
            field.args.map((arg) => arg.name),
            selection ? parseSelectionSet(selection) : undefined,
          );
          // The text sent, read back: what the server validates.
          const errors = validate(schema, parse(print(document)));
          if (errors.length > 0)
            failures.push(`${field.name} ${JSON.stringify(budget)}: ${errors[0]?.message}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('caps a generated selection in bytes at the largest depth and breadth, naming what it left out', () => {
    const budget = { depth: 10, breadth: 200 };
    const sizes: number[] = [];
    for (const name of ['repository', 'viewer', 'organization', 'search']) {
      const field = schema.getQueryType()?.getFields()[name];
      if (!field) throw new Error(`no Query.${name}`);
      const { selection, dropped } = buildBoundedSelection(schema, getNamedType(field.type), budget);
      sizes.push(Buffer.byteLength(selection));
      expect(dropped.length, name).toBeGreaterThan(0);
      expect(
        dropped.every((entry) => /^\w+\.\w+$/.test(entry)),
        name,
      ).toBe(true);
      const document = fieldDocument(
        'query',
        field,
        field.args.map((arg) => arg.name),
        parseSelectionSet(selection),
      );
      expect(
        validate(schema, parse(print(document))).map((error) => error.message),
        name,
      ).toEqual([]);
    }
    // A little slack: `__typename`, `... on Type` and connection page info are not charged.
    for (const size of sizes) expect(size).toBeLessThanOrEqual(MAX_SELECTION_BYTES * 1.1);
  });

  it('says in the result which fields a capped default selection left out', async () => {
    const deep = await loadTools(
      createGraphqlSource({ endpoint: server.url, depth: 10, breadth: 200 }, process.cwd()),
    );
    const result = await deep.call('viewer', {});
    expect(result.isError).toBeUndefined();
    const note = String((result.content.at(-1) as { text?: string }).text);
    expect(note).toMatch(
      new RegExp(
        `^Note: the default selection was cut at ${MAX_SELECTION_BYTES} bytes; left out: \\w+\\.\\w+`,
      ),
    );
    expect(note).toMatch(/Pass "select" to read those fields\.$/);
    expect(Buffer.byteLength(String(server.requests.at(-1)?.body.query))).toBeLessThan(
      MAX_SELECTION_BYTES * 1.2,
    );
  });

  it('runs a query with its arguments as variables and a connection-paginated selection', async () => {
    const before = server.requests.length;
    const result = await github.call('repository', { owner: 'octokit', name: 'graphql-schema' });
    expect(result.isError).toBeUndefined();
    const seen = server.requests[before]?.body;
    expect(seen?.variables).toEqual({ owner: 'octokit', name: 'graphql-schema' });
    expect(seen?.query).toMatch(
      /^query repository\(\$name:String!\$owner:String!\)\{repository\(name:\$name owner:\$owner\)\{id name /,
    );
    expect(seen?.query).toMatch(/\(first:10\)\{totalCount pageInfo\{hasNextPage endCursor\}nodes\{id /);
    expect(at(result.structuredContent, 'repository.id')).toEqual(expect.any(String));
    expect(JSON.parse(firstText(result))).toEqual(result.structuredContent);
  });

  it('runs a root connection with first defaulted, and a mutation with an input object', async () => {
    const before = server.requests.length;
    const search = await github.call('search', { query: 'bridge', type: 'REPOSITORY' });
    expect(search.isError).toBeUndefined();
    expect(server.requests[before]?.body.variables).toEqual({
      query: 'bridge',
      type: 'REPOSITORY',
      first: 10,
    });
    expect(at(search.structuredContent, 'search.pageInfo')).toEqual(
      expect.objectContaining({ hasNextPage: expect.any(Boolean) }),
    );

    const input = { repositoryId: 'R_1', title: 'Bug', labelIds: ['L_1', 'L_2'] };
    const created = await github.call('createIssue', { input });
    expect(created.isError).toBeUndefined();
    expect(server.requests[before + 1]?.body.variables).toEqual({ input });
    expect(server.requests[before + 1]?.body.query).toMatch(
      /^mutation createIssue\(\$input:CreateIssueInput!\)/,
    );
  });

  it('refuses an enum value, a missing input field and an invalid select before sending', async () => {
    const before = server.requests.length;
    const badEnum = await github.call('search', { query: 'x', type: 'REPOS' });
    expect(badEnum.isError).toBe(true);
    expect(firstText(badEnum)).toContain('/type: must be one of');
    const missing = await github.call('createIssue', { input: { title: 'no repo' } });
    expect(firstText(missing)).toContain('/input/repositoryId: is required');
    const select = await github.call('viewer', { select: '{ login stars }' });
    expect(select.isError).toBe(true);
    expect(firstText(select)).toContain('Cannot query field "stars" on type "User".');
    expect(server.requests.length).toBe(before);
    const good = await github.call('viewer', { select: 'login repositories(first: 2) { nodes { name } }' });
    expect(at(good.structuredContent, 'viewer.login')).toEqual(expect.any(String));
  });

  it('builds the tools from the introspection JSON file and from the SDL file', async () => {
    // The package's two files are not from the same day: each must give one tool per its own root field.
    const json = buildClientSchema(JSON.parse(readFileSync(JSON_PATH, 'utf8')));
    const rootFields = (s: GraphQLSchema) =>
      [
        ...Object.keys(s.getQueryType()?.getFields() ?? {}),
        ...Object.keys(s.getMutationType()?.getFields() ?? {}),
      ].sort();
    const fromJson = await loadTools(createGraphqlSource({ endpoint: server.url, schema: JSON_PATH }, '/'));
    expect(fromJson.registry.tools.map((tool) => tool.name).sort()).toEqual(rootFields(json));
    expect(
      at(fromJson.registry.get('createIssue')?.definition.inputSchema, '$defs.CreateIssueInput.required'),
    ).toEqual(['repositoryId', 'title']);
    // The published SDL defines some fields twice: served anyway, with a warning naming them.
    const fromSdl = await loadTools(createGraphqlSource({ endpoint: server.url, schema: SDL_PATH }, '/'));
    expect(fromSdl.registry.tools.map((tool) => tool.name).sort()).toEqual(rootFields(schema));
    expect(fromSdl.warnings.join('\n')).toMatch(
      /field EnterpriseOwnerInfo\.repositoryDeployKeySetting is defined more than once/,
    );
  });
});
