// Upstream sign-in against a real OAuth server (oidc-provider) and a protected API, over stdio:
// the loopback listener a stdio bridge opens for the redirect survives any request a local process
// or a web page can send it; two sources whose specs name the same scheme and OAuth server, but
// different APIs, never share a caller's token (checked on what each API received); a sign-in no
// call waits for any more is dropped (its start page answers no more).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browseSignIn } from '../helpers/browse-sign-in.js';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import {
  type AuthorizationServer,
  protectedApiSpec,
  startAuthorizationServer,
  startProtectedApi,
} from '../servers/oidc-server.js';

let authorization: AuthorizationServer;
let dir: string;
beforeAll(async () => {
  authorization = await startAuthorizationServer();
  dir = mkdtempSync(join(tmpdir(), 'bridge-sign-in-abuse-'));
});
afterAll(async () => {
  await authorization?.[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
});

const clientEnv = () => ({
  BRIDGE_ITEMS_AUTH_CLIENT_ID: authorization.client.id,
  BRIDGE_ITEMS_AUTH_CLIENT_SECRET: authorization.client.secret,
  BRIDGE_CACHE_DIR: join(dir, 'cache'),
});

/** The status line of a raw GET of `target` (written as is) to 127.0.0.1:`port`. */
function rawGet(port: number, target: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: target, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
    });
    req.on('error', (error) => resolve(`error ${error.message}`));
    req.end();
  });
}

/**
 * A stdio bridge serving a protected API, with a `listMyItems` call waiting on its sign-in: the
 * start page's URL (on the loopback listener) once the client was asked to open it.
 */
async function waitingOnSignIn(kind: 'v1' | 'v2', specName: string) {
  const api = await startProtectedApi(authorization);
  const spec = join(dir, specName);
  writeFileSync(spec, protectedApiSpec(api, authorization));
  let url = '';
  const client = await connect(
    kind,
    'stdio',
    { script: BRIDGE_BIN, args: ['openapi', spec], env: clientEnv() },
    {
      capabilities: { elicitation: { form: {}, url: {} } },
      async answer(_method, params) {
        url = String(params.url);
        return { action: 'accept' };
      },
    },
  );
  const abort = new AbortController();
  const call = client.callTool('listMyItems', {}, { signal: abort.signal }).catch(() => undefined);
  while (!url) await sleep(20);
  const start = new URL(url);
  return {
    client,
    call,
    abort,
    port: Number(start.port),
    startPage: start.pathname + start.search,
    async [Symbol.asyncDispose]() {
      await client[Symbol.asyncDispose]();
      await api[Symbol.asyncDispose]();
    },
  };
}

describe('the loopback listener of a stdio bridge', () => {
  it('answers any request target and the bridge goes on serving', async () => {
    await using waiting = await waitingOnSignIn('v1', 'items.json');
    for (const target of ['//', '//evil.example/oauth/start?flow=x', '/%', '*']) {
      expect(await rawGet(waiting.port, target), target).toMatch(/^(400|404)$/);
    }
    expect((await waiting.client.listTools()).tools.map((tool) => tool.name)).toContain('listMyItems');
    expect(await rawGet(waiting.port, waiting.startPage)).toBe('200');
  });

  it('drops a sign-in no call waits for any more', async () => {
    await using waiting = await waitingOnSignIn('v2', 'items-dropped.json');
    expect(await rawGet(waiting.port, waiting.startPage)).toBe('200');
    waiting.abort.abort();
    await waiting.call;
    let status = '';
    for (let waited = 0; waited < 3_000 && status !== '400'; waited += 50) {
      status = await rawGet(waiting.port, waiting.startPage);
      if (status !== '400') await sleep(50);
    }
    expect(status).toBe('400');
  });
});

describe('two sources with the same scheme and OAuth server', () => {
  it('sign in apart: one API never receives the token signed in for the other', async () => {
    const trusted = await startProtectedApi(authorization);
    const copying = await startProtectedApi(authorization);
    writeFileSync(join(dir, 'a.json'), protectedApiSpec(trusted, authorization));
    writeFileSync(join(dir, 'b.json'), protectedApiSpec(copying, authorization));
    const config = join(dir, 'bridge.yaml');
    writeFileSync(
      config,
      'sources:\n  - kind: openapi\n    namespace: a\n    options: { spec: ./a.json }\n  - kind: openapi\n    namespace: b\n    options: { spec: ./b.json }\n',
    );
    const asked: string[] = [];
    await using client = await connect(
      'v1',
      'stdio',
      { script: BRIDGE_BIN, args: ['serve', config, '--no-watch'], env: clientEnv() },
      {
        capabilities: { elicitation: { form: {}, url: {} } },
        async answer(_method, params) {
          asked.push(String(params.url));
          void browseSignIn(String(params.url), { login: 'alice' }).catch(() => {});
          return { action: 'accept' };
        },
      },
    );
    const first = await client.callTool('a_listMyItems', {});
    expect(first.isError).toBeFalsy();
    const second = await client.callTool('b_listMyItems', {});
    expect(second.isError).toBeFalsy();
    // A sign-in of its own for the second API, and neither API saw the other's token.
    expect(asked).toHaveLength(2);
    const tokensOf = (api: typeof trusted) =>
      new Set(api.requests.map((entry) => entry.token).filter(Boolean));
    for (const token of tokensOf(trusted)) expect(tokensOf(copying).has(token)).toBe(false);
    await trusted[Symbol.asyncDispose]();
    await copying[Symbol.asyncDispose]();
  });
});
