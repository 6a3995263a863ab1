// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config's and flags' literal ${VAR} syntax
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeYaml } from '../config/helpers.js';
import { type GraphqlServer, startGraphqlServer } from '../graphql/helpers/graphql-server.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';

// `${VAR}` in a header is expanded exactly once, on either path: by the config's loading or by
// `--header`'s parsing. `$${` stays a literal `${`, and a variable's value is sent as it is, even
// when it holds `${…}` itself. Asserted on the headers each upstream received, for both adapters.
const ENV = { HDR_KEY: 'k-secret', HDR_ODD: '${HDR_KEY}' };
const WRITTEN = { 'X-Key': '${HDR_KEY}', 'X-Template': 'literal $${HDR_KEY}', 'X-Odd': '${HDR_ODD}' };
const SENT = { 'x-key': 'k-secret', 'x-template': 'literal ${HDR_KEY}', 'x-odd': '${HDR_KEY}' };

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Echo', version: '1.0.0' },
  paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'OK' } } } } },
};

let graphql: GraphqlServer;
let rest: ReturnType<typeof createServer>;
let restUrl: string;
const restSeen: IncomingHttpHeaders[] = [];
let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  graphql = await startGraphqlServer(makeExecutableSchema({ typeDefs: 'type Query { ping: String }' }));
  rest = createServer((req, res) => {
    restSeen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  rest.listen(0, '127.0.0.1');
  await once(rest, 'listening');
  restUrl = `http://127.0.0.1:${(rest.address() as AddressInfo).port}`;
  dir = await tempDir();
  await writeFile(dir.file('spec.json'), JSON.stringify(SPEC));
  await writeFile(dir.file('schema.graphql'), 'type Query { ping: String }');
  await writeYaml(dir.file('bridge.yaml'), {
    sources: [
      {
        kind: 'graphql',
        namespace: 'gql',
        options: { endpoint: graphql.url, schema: './schema.graphql', headers: WRITTEN },
      },
      {
        kind: 'openapi',
        namespace: 'rest',
        options: { spec: './spec.json', baseUrl: restUrl, headers: WRITTEN },
      },
    ],
  });
});
afterAll(async () => {
  await graphql?.[Symbol.asyncDispose]();
  rest?.closeAllConnections();
  rest?.close();
  await dir?.[Symbol.asyncDispose]();
});

/** The headers `expected` names, as an upstream received them. */
function picked(headers: IncomingHttpHeaders | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.keys(SENT).map((name) => [name, headers?.[name]]));
}

async function callOnce(args: string[], tool: string): Promise<void> {
  await using bridge = await startHttpBridge({ script: BRIDGE_BIN, args, env: ENV, cwd: dir.path });
  const reply = await modernRequest(bridge.url, 'tools/call', { name: tool, arguments: {} });
  expect(reply.json?.result?.isError, reply.text).toBeFalsy();
}

const flags = Object.entries(WRITTEN).flatMap(([name, value]) => ['--header', `${name}: ${value}`]);

describe('a header value is expanded once', () => {
  it('from a config file, for GraphQL and OpenAPI sources', async () => {
    const before = graphql.requests.length;
    await callOnce(['serve', dir.file('bridge.yaml')], 'gql_ping');
    expect(picked(graphql.requests[before]?.headers)).toEqual(SENT);
    await callOnce(['serve', dir.file('bridge.yaml')], 'rest_ping');
    expect(picked(restSeen.at(-1))).toEqual(SENT);
  });

  it('from --header flags, for `bridge graphql` and `bridge openapi`', async () => {
    const before = graphql.requests.length;
    await callOnce(['graphql', graphql.url, '--schema', 'schema.graphql', ...flags], 'ping');
    expect(picked(graphql.requests[before]?.headers)).toEqual(SENT);
    await callOnce(['openapi', 'spec.json', '--base-url', restUrl, ...flags], 'ping');
    expect(picked(restSeen.at(-1))).toEqual(SENT);
  });
});
