import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../adapters/openapi/public-address.js';
import { firstText, type LoadedTools, loadTools } from './helpers/in-process.js';
import { startUpstream, type Upstream } from './helpers/upstream.js';

// A spec fetched by URL from the internet names its own top-level server: its author, not the user,
// chose it. Its calls connect to public addresses only, so a server at 169.254.169.254, on
// localhost or on the user's network (written as an address, or a name resolving there) is never
// called, with the user's credentials or without. In this test's world two loopback addresses
// stand for the internet: the spec is served from 127.0.0.3, a public API listens on 127.0.0.4, and
// the API the spec's author aims at listens on 127.0.0.1, the user's machine.
const network = {
  isPublicAddress: (address: string) =>
    address === '127.0.0.3' || address === '127.0.0.4' || isPublicAddress(address),
};

let inside: Upstream;
let outside: Server;
let outsideHits = 0;
let specServer: Server;
let tools: LoadedTools | undefined;
const specs = new Map<string, unknown>();

const specNaming = (server: string) => ({
  openapi: '3.0.3',
  info: { title: 'elsewhere', version: '1' },
  servers: [{ url: server }],
  paths: { '/items': { get: { operationId: 'items', responses: { '200': { description: 'ok' } } } } },
});

async function listen(server: Server, host: string): Promise<string> {
  server.listen(0, host);
  await once(server, 'listening');
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

let specOrigin: string;
let outsideOrigin: string;
beforeAll(async () => {
  inside = await startUpstream();
  outside = createServer((_, response) => {
    outsideHits++;
    response.setHeader('content-type', 'application/json');
    response.end('{"ok":true}');
  });
  outsideOrigin = await listen(outside, '127.0.0.4');
  specServer = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(specs.get(request.url ?? '')));
  });
  specOrigin = await listen(specServer, '127.0.0.3');
  const port = new URL(inside.url).port;
  specs.set('/address.json', specNaming(inside.url));
  specs.set('/name.json', specNaming(`http://localhost:${port}/v1`));
  specs.set('/metadata.json', specNaming('http://169.254.169.254/latest'));
  specs.set('/public.json', specNaming(`${outsideOrigin}/v1`));
  // A public API whose OAuth2 token endpoint is on the user's machine, by address or by name.
  const tokenAt = (tokenUrl: string) => ({
    ...specNaming(`${outsideOrigin}/v1`),
    components: {
      securitySchemes: { cc: { type: 'oauth2', flows: { clientCredentials: { tokenUrl, scopes: {} } } } },
    },
    security: [{ cc: [] }],
  });
  specs.set('/token.json', tokenAt(`${inside.url}/oauth/token`));
  specs.set('/token-name.json', tokenAt(`http://localhost:${port}/v1/oauth/token`));
});
afterAll(async () => {
  await inside?.close();
  outside?.close();
  specServer?.close();
});
beforeEach(() => {
  inside.requests.length = 0;
  outsideHits = 0;
});
afterEach(async () => {
  await tools?.close();
  tools = undefined;
});

describe('a spec fetched from a public address', () => {
  it.each([
    ['an address on this machine', '/address.json', '127.0.0.1'],
    ['a name resolving to this machine', '/name.json', 'localhost ('],
    ['the cloud metadata address', '/metadata.json', '169.254.169.254'],
  ])('never calls a top-level server at %s', async (_label, path, named) => {
    tools = await loadTools(
      { spec: `${specOrigin}${path}`, tools: 'all', headers: { 'X-Api-Key': 'SECRET' } },
      network,
    );
    const result = await tools.call('items');
    expect(result.isError).toBe(true);
    expect(inside.requests).toEqual([]);
    expect(firstText(result)).toContain(`the server ${named}`);
    expect(firstText(result)).toContain('is not a public address, and the spec was fetched by URL');
    expect(firstText(result)).toContain('Nothing was sent');
  });

  it.each([
    ['by address', '/token.json', 'the server 127.0.0.1 is not a public address'],
    ['by name', '/token-name.json', 'the server localhost ('],
  ])(
    "never sends the user's client secret to a token endpoint on this machine (%s)",
    async (_label, path, named) => {
      process.env.BRIDGE_CC_CLIENT_ID = 'client-1';
      process.env.BRIDGE_CC_CLIENT_SECRET = 'shh';
      try {
        // The user grants the scheme its variables (a fetched spec's get none otherwise).
        tools = await loadTools({ spec: `${specOrigin}${path}`, tools: 'all', authSchemes: ['cc'] }, network);
        const result = await tools.call('items');
        expect(result.isError).toBe(true);
        expect(inside.requests).toEqual([]);
        expect(inside.tokens).toEqual([]);
        expect(outsideHits).toBe(0);
        expect(firstText(result)).toContain(named);
      } finally {
        delete process.env.BRIDGE_CC_CLIENT_ID;
        delete process.env.BRIDGE_CC_CLIENT_SECRET;
      }
    },
  );

  it('calls a public top-level server', async () => {
    tools = await loadTools({ spec: `${specOrigin}/public.json`, tools: 'all' }, network);
    const result = await tools.call('items');
    expect(result.isError).toBeFalsy();
    expect(outsideHits).toBe(1);
  });

  it('calls the server --base-url names, wherever it is', async () => {
    tools = await loadTools(
      { spec: `${specOrigin}/address.json`, tools: 'all', baseUrl: inside.url },
      network,
    );
    expect((await tools.call('items')).isError).toBeFalsy();
    expect(inside.requests.map(({ url }) => url)).toEqual(['/v1/items']);
  });
});

describe('a spec fetched from this machine or the local network', () => {
  it('calls the servers it names there', async () => {
    // An internal spec server names internal APIs.
    const local = createServer((_, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(specNaming(inside.url)));
    });
    const localOrigin = await listen(local, '127.0.0.1');
    try {
      tools = await loadTools({ spec: `${localOrigin}/spec.json`, tools: 'all' }, network);
      expect((await tools.call('items')).isError).toBeFalsy();
      expect(inside.requests.map(({ url }) => url)).toEqual(['/v1/items']);
    } finally {
      local.close();
    }
  });
});
