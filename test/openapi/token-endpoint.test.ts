import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFixedAnswer, startFlood } from '../helpers/flood.js';
import { echoOf, firstText, loadTools } from './helpers/in-process.js';
import { startUpstream, type Upstream } from './helpers/upstream.js';

// A spec decides where the bridge gets OAuth2 tokens, and the client's secret (or a sign-in's code
// and verifier) goes there. A spec's token endpoint in clear text on another machine gets nothing;
// one the user sets in BRIDGE_<SCHEME>_TOKEN_URL is used as set.

/** An address of this machine that is not loopback (the token server listens on all of them). */
const OTHER_HOST =
  Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address ?? '0.0.0.0';

const VARIABLES = [
  'BRIDGE_CC_CLIENT_ID',
  'BRIDGE_CC_CLIENT_SECRET',
  'BRIDGE_CC_TOKEN_URL',
  'BRIDGE_CC_AUTHORIZATION_URL',
];

let upstream: Upstream;
let tokens: { server: Server; url: string; seen: IncomingHttpHeaders[] };
let dir: string;

beforeAll(async () => {
  upstream = await startUpstream();
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ access_token: 'from-token-server', expires_in: 3600 }));
  });
  server.listen(0, '0.0.0.0');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  tokens = { server, url: `http://${OTHER_HOST}:${port}/token`, seen };
  dir = mkdtempSync(join(tmpdir(), 'bridge-token-url-'));
});
afterEach(() => {
  for (const name of VARIABLES) delete process.env[name];
  tokens.seen.length = 0;
  upstream.requests.length = 0;
});
afterAll(async () => {
  tokens.server.closeAllConnections();
  tokens.server.close();
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A spec with one operation secured by `scheme`, written to the temp directory. */
function specWith(scheme: Record<string, unknown>): string {
  const file = join(dir, `spec-${Math.random().toString(36).slice(2)}.json`);
  const spec = {
    openapi: '3.0.3',
    info: { title: 'token endpoints', version: '1' },
    paths: {
      '/echo': {
        get: { operationId: 'secured', security: [{ cc: [] }], responses: { 200: { description: 'ok' } } },
      },
    },
    components: { securitySchemes: { cc: scheme } },
  };
  writeFileSync(file, JSON.stringify(spec));
  return file;
}

const clientCredentials = (tokenUrl: string) => ({
  type: 'oauth2',
  flows: { clientCredentials: { tokenUrl, scopes: {} } },
});

describe("a spec's OAuth2 token endpoint", () => {
  /** The result of calling `secured` with client credentials from the token endpoint at `tokenUrl`. */
  async function callWithTokensFrom(tokenUrl: string) {
    Object.assign(process.env, {
      BRIDGE_CC_CLIENT_ID: 'id',
      BRIDGE_CC_CLIENT_SECRET: 'secret',
      BRIDGE_CC_TOKEN_URL: tokenUrl,
    });
    const api = await loadTools({
      spec: specWith(clientCredentials('https://tokens.invalid/token')),
      baseUrl: upstream.url,
      tools: 'all',
    });
    try {
      return await api.call('secured');
    } finally {
      await api.close();
    }
  }

  it('that answers without end is read up to 1 MiB, and the call says so', async () => {
    await using flood = await startFlood();
    const result = await callWithTokensFrom(`${flood.url}/token`);
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('larger than 1 MiB');
    // The rest was never downloaded (socket buffers aside), and the API got no call.
    expect(await flood.written()).toBeLessThan(16 * 1024 * 1024);
    expect(upstream.requests).toHaveLength(0);
  });

  it('that answers JSON but no object says it has no access_token', async () => {
    await using endpoint = await startFixedAnswer(200, 'null');
    const result = await callWithTokensFrom(`${endpoint.url}/token`);
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/: the answer has no access_token$/);
    expect(upstream.requests).toHaveLength(0);
  });

  it('gets no client secret in clear text on another machine, and the call says what to set', async () => {
    Object.assign(process.env, { BRIDGE_CC_CLIENT_ID: 'id', BRIDGE_CC_CLIENT_SECRET: 'secret' });
    const api = await loadTools({
      spec: specWith(clientCredentials(tokens.url)),
      baseUrl: upstream.url,
      tools: 'all',
    });
    try {
      const result = await api.call('secured');
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain(`token URL ${tokens.url} is not https`);
      expect(firstText(result)).toContain('BRIDGE_CC_TOKEN_URL');
      // Nothing left the bridge: not to the token endpoint, not to the API without its token.
      expect(tokens.seen).toHaveLength(0);
      expect(upstream.requests).toHaveLength(0);
    } finally {
      await api.close();
    }
  });

  it('is replaced by BRIDGE_<SCHEME>_TOKEN_URL, used as the user set it', async () => {
    Object.assign(process.env, {
      BRIDGE_CC_CLIENT_ID: 'id',
      BRIDGE_CC_CLIENT_SECRET: 'secret',
      BRIDGE_CC_TOKEN_URL: tokens.url,
    });
    const spec = specWith(clientCredentials('https://tokens.invalid/token'));
    const api = await loadTools({ spec, baseUrl: upstream.url, tools: 'all' });
    try {
      const result = await api.call('secured');
      expect(result.isError).toBeFalsy();
      expect(tokens.seen).toHaveLength(1);
      expect(tokens.seen[0]?.authorization).toBe(`Basic ${Buffer.from('id:secret').toString('base64')}`);
      expect(echoOf(result).headers.authorization).toBe('Bearer from-token-server');
    } finally {
      await api.close();
    }
  });

  it("a sign-in's authorization URL in clear text on another machine is refused before a sign-in starts", async () => {
    process.env.BRIDGE_CC_CLIENT_ID = 'id';
    const scheme = {
      type: 'oauth2',
      flows: {
        authorizationCode: {
          authorizationUrl: `http://${OTHER_HOST}:9/authorize`,
          tokenUrl: 'https://id.invalid/token',
          scopes: {},
        },
      },
    };
    const api = await loadTools({ spec: specWith(scheme), baseUrl: upstream.url, tools: 'all' });
    try {
      const result = await api.call('secured');
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain(`authorization URL http://${OTHER_HOST}:9/authorize is not https`);
      expect(firstText(result)).toContain('BRIDGE_CC_AUTHORIZATION_URL');
      expect(firstText(result)).not.toContain('/authorize?');
      expect(upstream.requests).toHaveLength(0);
      // Replaced by the variable, the sign-in goes on: to asking the client to open a URL.
      process.env.BRIDGE_CC_AUTHORIZATION_URL = 'https://id.invalid/authorize';
      const replaced = await loadTools({ spec: specWith(scheme), baseUrl: upstream.url, tools: 'all' });
      try {
        expect(firstText(await replaced.call('secured'))).toContain('needs a client that can open a URL');
      } finally {
        await replaced.close();
      }
    } finally {
      await api.close();
    }
  });

  it('of a sign-in is held to the same rule before a sign-in starts', async () => {
    process.env.BRIDGE_CC_CLIENT_ID = 'id';
    const scheme = {
      type: 'oauth2',
      flows: {
        authorizationCode: {
          authorizationUrl: 'https://id.invalid/authorize',
          tokenUrl: tokens.url,
          scopes: {},
        },
      },
    };
    const api = await loadTools({ spec: specWith(scheme), baseUrl: upstream.url, tools: 'all' });
    try {
      const result = await api.call('secured');
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain(`token URL ${tokens.url} is not https`);
      expect(tokens.seen).toHaveLength(0);
      expect(upstream.requests).toHaveLength(0);
    } finally {
      await api.close();
    }
  });
});
