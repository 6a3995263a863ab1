import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { startGraphqlServer } from '../graphql/helpers/graphql-server.js';
import { tempDir, writeYaml } from './helpers.js';

/** A REST API with a spec: `GET /status` (operationId `status`) and `GET /items`. */
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Inventory', version: '1.0.0' },
  paths: {
    '/status': {
      get: {
        operationId: 'status',
        summary: 'Whether the inventory service is up.',
        responses: {
          '200': { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
    '/items': {
      get: {
        operationId: 'listItems',
        summary: 'Lists the items in stock.',
        responses: {
          '200': { description: 'OK', content: { 'application/json': { schema: { type: 'array' } } } },
        },
      },
    },
  },
};

const SDL = /* GraphQL */ `
  type Query {
    "Whether the catalogue service is up."
    status: String!
    "Titles in the catalogue."
    titles: [String!]!
  }
`;

/**
 * Everything a three-kind config needs, on 127.0.0.1: a REST API, a GraphQL API, and a git
 * repository in a temp dir that also holds the spec and the config. Dispose to stop them all.
 */
export async function startUpstreams() {
  const dir = await tempDir();
  const rest = createServer((request, response) => {
    const body = request.url === '/status' ? { service: 'rest', ok: true } : [{ id: 1, name: 'bolt' }];
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  rest.listen(0, '127.0.0.1');
  await once(rest, 'listening');
  const restUrl = `http://127.0.0.1:${(rest.address() as AddressInfo).port}`;
  const graphql = await startGraphqlServer(
    makeExecutableSchema({
      typeDefs: SDL,
      resolvers: { Query: { status: () => 'graphql ok', titles: () => ['Dune', 'Emma'] } },
    }),
  );
  execFileSync('git', ['init', '-q', '-b', 'main', dir.path]);
  await writeFile(dir.file('spec.json'), JSON.stringify(SPEC));
  const config: { sources: Array<Record<string, unknown> & { tools?: unknown }> } = {
    sources: [
      { kind: 'openapi', namespace: 'rest', options: { spec: './spec.json', baseUrl: restUrl } },
      { kind: 'graphql', namespace: 'gql', options: { endpoint: graphql.url } },
      {
        kind: 'cli',
        include: ['git_status', 'git_log'],
        options: { program: 'git', allow: ['status', 'log'] },
      },
    ],
  };
  await writeYaml(dir.file('bridge.config.yaml'), config);
  return {
    dir,
    /** The config as written; change it and write it again with `writeYaml`. */
    config,
    configFile: dir.file('bridge.config.yaml'),
    async [Symbol.asyncDispose]() {
      rest.closeAllConnections();
      rest.close();
      await graphql[Symbol.asyncDispose]();
      await dir[Symbol.asyncDispose]();
    },
  };
}
