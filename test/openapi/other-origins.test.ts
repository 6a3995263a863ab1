import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cacheFile } from '../../adapters/openapi/cache-tools.js';
import { firstText, type LoadedTools, loadTools } from './helpers/in-process.js';
import { type SeenRequest, startUpstream, type Upstream } from './helpers/upstream.js';

// The user's --header values and a security scheme's credentials go to the origin the user chose
// (--base-url, else the spec's top-level server), never to another origin an operation or a path
// names for itself. A local spec's other origins are called without them; a spec fetched by URL is
// not followed there at all (its author could name 169.254.169.254 or a service on localhost).
let api: Upstream;
let other: Upstream;
let dir: string;
let specServer: Server;
let specUrl: string;
let tools: LoadedTools | undefined;
const saved = process.env.BRIDGE_BEARER_TOKEN;

const spec = () => ({
  openapi: '3.0.3',
  info: { title: 'origins', version: '1' },
  servers: [{ url: api.url }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  security: [{ bearer: [] }],
  paths: {
    '/items': { get: { operationId: 'top', responses: { '200': { description: 'ok' } } } },
    '/elsewhere': {
      get: {
        operationId: 'operationServer',
        servers: [{ url: `${other.url}/elsewhere-base` }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/path-level': {
      servers: [{ url: other.url }],
      get: { operationId: 'pathServer', responses: { '200': { description: 'ok' } } },
    },
    '/status/401': {
      get: {
        operationId: 'rejected',
        servers: [{ url: other.url }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/same-origin': {
      get: {
        operationId: 'sameOrigin',
        servers: [{ url: `${api.origin}/v2` }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
});

beforeAll(async () => {
  process.env.BRIDGE_BEARER_TOKEN = 'ENVTOKEN';
  api = await startUpstream();
  other = await startUpstream();
  dir = mkdtempSync(join(tmpdir(), 'bridge-other-origins-'));
  writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec()));
  specServer = createServer((_, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(spec()));
  });
  await new Promise<void>((resolve) => specServer.listen(0, '127.0.0.1', resolve));
  specUrl = `http://127.0.0.1:${(specServer.address() as AddressInfo).port}/spec.json`;
});
afterAll(async () => {
  if (saved === undefined) delete process.env.BRIDGE_BEARER_TOKEN;
  else process.env.BRIDGE_BEARER_TOKEN = saved;
  await api?.close();
  await other?.close();
  await new Promise((resolve) => specServer?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  api.requests.length = 0;
  other.requests.length = 0;
});
afterEach(async () => {
  await tools?.close();
  tools = undefined;
});

const load = async (
  location: string,
  options: {
    baseUrl?: string;
    forwardAuth?: boolean;
    allowRemoteRefs?: boolean;
    authSchemes?: string[];
  } = {},
) => {
  tools = await loadTools({
    spec: location,
    tools: 'all',
    headers: { 'X-Api-Key': 'HDRSECRET' },
    ...options,
  });
  return tools;
};
// The MCP client's own token: sent upstream only with forwardAuth.
const call = (name: string) => tools?.call(name, {}, undefined, 'Bearer CLIENTTOKEN');
// What a request carried of the user's and the client's credentials.
const credentials = (seen: SeenRequest | undefined) => ({
  authorization: seen?.headers.authorization,
  apiKey: seen?.headers['x-api-key'],
});
const withCredentials = { authorization: 'Bearer ENVTOKEN', apiKey: 'HDRSECRET' };
const without = { authorization: undefined, apiKey: undefined };

describe('a local spec', () => {
  it.each([
    ['a fresh conversion', false],
    ['the conversion cache', true],
  ])('sends credentials to its own origin only (%s)', async (_, cached) => {
    // The first load's conversion is cached when it closes.
    const specPath = join(dir, 'spec.json');
    expect(existsSync(cacheFile(specPath, [undefined, undefined, undefined, undefined]))).toBe(cached);
    const { warnings } = await load(join(dir, 'spec.json'));
    await call('top');
    await call('sameOrigin');
    expect(api.requests.map(({ url }) => url)).toEqual(['/v1/items', '/v2/same-origin']);
    for (const seen of api.requests) expect(credentials(seen)).toEqual(withCredentials);
    // The operation's and the path's own servers on another origin: called, without credentials.
    await call('operationServer');
    await call('pathServer');
    expect(other.requests.map(({ url }) => url)).toEqual(['/v1/elsewhere-base/elsewhere', '/v1/path-level']);
    for (const seen of other.requests) {
      expect(credentials(seen)).toEqual(without);
      expect(JSON.stringify(seen.headers)).not.toMatch(/ENVTOKEN|HDRSECRET|CLIENTTOKEN/);
    }
    expect(warnings).toEqual([
      expect.stringContaining(
        `3 operations have a server of its own on another origin than the spec's top-level server; your --header values and credentials go to that origin only, so they are called without them`,
      ),
    ]);
    expect(warnings[0]).toContain(
      `operationServer (${other.origin}), pathServer (${other.origin}), rejected (${other.origin})`,
    );
  });

  it("forwards the client's token to its own origin only, and says why a 401 came without it", async () => {
    await load(join(dir, 'spec.json'), { forwardAuth: true });
    await call('top');
    expect(credentials(api.requests[0])).toEqual({ ...withCredentials, authorization: 'Bearer CLIENTTOKEN' });
    const result = await call('rejected');
    expect(result?.isError).toBe(true);
    expect(firstText(result as never)).toContain(
      `No credentials were sent: the operation's server ${other.origin} is not the API's own origin`,
    );
    expect(credentials(other.requests[0])).toEqual(without);
  });

  it('sends every call, with credentials, to --base-url', async () => {
    const { warnings } = await load(join(dir, 'spec.json'), { baseUrl: api.url });
    await call('operationServer');
    expect(other.requests).toEqual([]);
    expect(api.requests.map(({ url }) => url)).toEqual(['/v1/elsewhere']);
    expect(credentials(api.requests[0])).toEqual(withCredentials);
    expect(warnings).toEqual([]);
  });
});

describe('a local spec whose references are followed to URLs', () => {
  // A document fetched for a `$ref` may be a path item with servers of its own: 169.254.169.254,
  // or a service on this machine, chosen by whoever serves that document.
  it('calls its own origin only, and refuses the others without sending anything', async () => {
    const { warnings } = await load(join(dir, 'spec.json'), { allowRemoteRefs: true });
    await call('top');
    expect(credentials(api.requests[0])).toEqual(withCredentials);
    for (const name of ['operationServer', 'pathServer']) {
      const result = await call(name);
      expect(result?.isError).toBe(true);
      expect(firstText(result as never)).toContain(
        `${name}: the operation's server ${other.origin} is on another origin than the spec's top-level server, and the spec's references are followed to URLs (--allow-remote-refs)`,
      );
    }
    expect(other.requests).toEqual([]);
    expect(warnings).toEqual([
      expect.stringContaining(
        "3 operations have a server of its own on another origin than the spec's top-level server; the spec's references are followed to URLs (--allow-remote-refs)",
      ),
    ]);
  });
});

describe('a local spec whose top-level servers come through a $ref', () => {
  // Followed to a URL, the reference lets whoever serves that document choose the origin the
  // calls, with the user's credentials, go to: the spec's own servers must be written in it.
  it('is refused at load when references are followed to URLs, before anything is fetched', async () => {
    const file = join(dir, 'referenced-servers.json');
    writeFileSync(file, JSON.stringify({ ...spec(), servers: [{ $ref: `${specUrl}#/servers/0` }] }));
    await expect(load(file, { allowRemoteRefs: true })).rejects.toThrow(
      'its top-level servers come through a $ref, and references are followed to URLs (--allow-remote-refs)',
    );
    // Or through a `$ref` at the root, which brings in the servers of the document it names.
    const { servers: _servers, ...withoutServers } = spec();
    const rooted = join(dir, 'referenced-root.json');
    writeFileSync(rooted, JSON.stringify({ ...withoutServers, $ref: specUrl }));
    await expect(load(rooted, { allowRemoteRefs: true })).rejects.toThrow(
      'its root is a $ref, and references are followed to URLs (--allow-remote-refs)',
    );
    expect(api.requests).toEqual([]);
  });
});

describe('a spec fetched by URL', () => {
  it('calls its own origin only, and refuses the others without sending anything', async () => {
    // A key in the spec's URL is shown as `token=…`, in the result and in the log alike.
    // The user grants its scheme the variables it names (see scheme-grants.test.ts).
    const { warnings } = await load(`${specUrl}?token=URLSECRET`, { authSchemes: ['bearer'] });
    await call('top');
    expect(credentials(api.requests[0])).toEqual(withCredentials);
    const result = await call('operationServer');
    expect(result?.isError).toBe(true);
    expect(firstText(result as never)).toContain(
      `operationServer: the operation's server ${other.origin} is on another origin than the spec's top-level server, and the operations of a spec fetched by URL (${specUrl}?token=…)`,
    );
    await call('pathServer');
    expect(other.requests).toEqual([]);
    expect(warnings).toEqual([
      expect.stringContaining(`${specUrl}?token=…: 3 operations have a server of its own on another origin`),
    ]);
    expect(JSON.stringify([result, warnings])).not.toContain('URLSECRET');
    expect(warnings[0]).toContain(
      'a spec fetched by URL is called on that origin only, so they are not called',
    );
  });

  it('sends every call to --base-url, with credentials', async () => {
    await load(specUrl, { baseUrl: api.url, forwardAuth: true, authSchemes: ['bearer'] });
    await call('pathServer');
    expect(other.requests).toEqual([]);
    expect(credentials(api.requests[0])).toEqual({ ...withCredentials, authorization: 'Bearer CLIENTTOKEN' });
  });
});
