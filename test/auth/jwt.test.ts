import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { type JwksServer, makeKey, mintToken, startJwksServer, type TestKey } from './jwks-server.js';
import { connectWithToken } from './token-clients.js';

const script = distPath('test/servers/auth-server.js');

let jwks: JwksServer;
let bridge: HttpBridge;
let signing: TestKey;
let stranger: TestKey;
let resource: string;
let metadataUrl: string;

beforeAll(async () => {
  signing = await makeKey('key-1');
  stranger = await makeKey('key-1'); // Same key id, different key: a forged signature.
  jwks = await startJwksServer([signing]);
  bridge = await startHttpBridge({
    script,
    args: [
      'notes',
      '--auth',
      'jwt',
      '--jwks-url',
      jwks.jwksUrl,
      '--issuer',
      jwks.issuer,
      '--log-level',
      'debug',
    ],
  });
  resource = bridge.url.href;
  metadataUrl = `${bridge.url.origin}/.well-known/oauth-protected-resource/mcp`;
});

afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
  await jwks?.[Symbol.asyncDispose]();
});

const token = (claims: Record<string, unknown> = {}, key = signing) =>
  mintToken(key, { iss: jwks.issuer, aud: resource, scope: 'read write', ...claims });

/** A raw MCP POST, to see exactly what the HTTP layer answers. */
function post(body: unknown, bearer?: string, headers: Record<string, string> = {}) {
  return fetch(bridge.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const callWrite = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'write_note', arguments: { key: 'k', text: 'v' } },
};

async function expectRefusal(
  response: Response,
  status: number,
  error: string | undefined,
  description: RegExp,
) {
  expect(response.status).toBe(status);
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain(`resource_metadata="${metadataUrl}"`);
  if (error) expect(challenge).toContain(`error="${error}"`);
  else expect(challenge).not.toContain('error=');
  const body = (await response.json()) as { error: string; error_description: string };
  expect(body.error).toBe(error ?? 'invalid_token');
  expect(body.error_description).toMatch(description);
  return challenge;
}

describe('JWT bearer tokens on Streamable HTTP', () => {
  it('answers a request without a token with 401 and a challenge naming the metadata', async () => {
    const challenge = await expectRefusal(await post(initialize), 401, undefined, /needs a bearer token/);
    expect(challenge).toContain('scope="read"');
  });

  it('refuses a token with a bad signature', async () => {
    await expectRefusal(await post(initialize, await token({}, stranger)), 401, 'invalid_token', /signature/);
  });

  it('refuses a token issued for another resource', async () => {
    const wrong = await token({ aud: 'https://other.example.com/mcp' });
    await expectRefusal(await post(initialize, wrong), 401, 'invalid_token', /audience must be/);
  });

  it('refuses an expired token', async () => {
    await expectRefusal(
      await post(initialize, await token({ expiresIn: -120 })),
      401,
      'invalid_token',
      /expired/,
    );
  });

  it('refuses a token from another issuer and a header that is not a bearer token', async () => {
    const foreign = await token({ iss: 'https://evil.example.com' });
    await expectRefusal(
      await post(initialize, foreign),
      401,
      'invalid_token',
      /another authorization server/,
    );
    const basic = await post(initialize, undefined, { authorization: 'Basic dXNlcjpwYXNz' });
    await expectRefusal(basic, 401, undefined, /needs a bearer token/);
  });

  it('refuses tools/call of a write tool with only the read scope: 403 insufficient_scope', async () => {
    const readOnly = await token({ scope: 'read' });
    const challenge = await expectRefusal(
      await post(callWrite, readOnly),
      403,
      'insufficient_scope',
      /write_note.*write/,
    );
    expect(challenge).toContain('scope="write"');
  });

  it('accepts a good token', async () => {
    const response = await post(initialize, await token());
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeTruthy();
  });

  it('serves the protected-resource metadata at the path-suffixed and the bare well-known path', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(new URL(path, bridge.url));
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource,
        authorization_servers: [jwks.issuer],
        scopes_supported: ['read', 'write'],
        bearer_methods_supported: ['header'],
      });
    }
    const elsewhere = await fetch(new URL('/.well-known/oauth-protected-resource/other', bridge.url));
    expect(elsewhere.status).toBe(404);
  });

  it('fetched the signing keys once for all these tokens', () => {
    expect(jwks.fetches).toBe(1);
  });

  it('never writes a token to the log', async () => {
    const secret = await token({ scope: 'read' });
    await post(callWrite, secret);
    await post(initialize, `${secret.slice(0, -4)}AAAA`);
    expect(bridge.stderr()).toContain('refused');
    expect(bridge.stderr()).not.toContain(secret.split('.')[2]);
  });
});

describe.each(['v1', 'v2'] as const)('the %s SDK client with a bearer token', (kind) => {
  it('connects, lists and calls tools as the token subject', async () => {
    await using client = await connectWithToken(kind, bridge.url, await token({ sub: `user-${kind}` }));
    expect(await client.listTools()).toEqual(['echo', 'long', 'wait', 'whoami', 'write_note']);
    const echoed = await client.callTool('echo', { text: 'hi' });
    expect(echoed.content[0]?.text).toBe('hi');
    const who = await client.callTool('whoami');
    expect(who.content[0]?.text).toBe(`auth:user-${kind}`);
    const stored = await client.callTool('write_note', { key: kind, text: 'x' });
    expect(stored.content[0]?.text).toBe(`stored ${kind}`);
  });

  it('with only the read scope: reads work, a write tool is refused with 403', async () => {
    await using client = await connectWithToken(kind, bridge.url, await token({ scope: 'read' }));
    expect((await client.callTool('echo', { text: 'ok' })).content[0]?.text).toBe('ok');
    await expect(client.callTool('write_note', { key: 'k', text: 'v' })).rejects.toThrow(
      /403|insufficient_scope|Insufficient scope: required "write"/,
    );
  });

  it('without a token cannot connect', async () => {
    await expect(connectWithToken(kind, bridge.url, 'not-a-valid-token')).rejects.toThrow(
      /401|nauthorized|invalid_token/,
    );
  });
});
