// JWTs of every kind a real authorization server (oidc-provider) issues, offered to the bridge as
// bearer tokens: only an access token is one (RFC 9068 §4), whatever else its claims say.
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { type AuthorizationServer, startAuthorizationServer } from '../servers/oidc-server.js';
import { connectWithToken } from './token-clients.js';

const script = distPath('test/servers/auth-server.js');
// The client's id is the resource's URL, so its ID tokens name the bridge as their audience: the
// confusion RFC 9068 §4 guards against, where only the type tells the two tokens apart.
const resource = 'https://mcp.example.test/mcp';

let authorization: AuthorizationServer;
let tokens: { id_token: string; access_token: string };
let bridge: HttpBridge;
const bridges: HttpBridge[] = [];

const startBridge = async (...flags: string[]) => {
  const bridge = await startHttpBridge({
    script,
    args: ['notes', '--auth', 'jwt', '--issuer', authorization.issuer, '--resource', resource, ...flags],
  });
  bridges.push(bridge);
  return bridge;
};

beforeAll(async () => {
  authorization = await startAuthorizationServer({
    resourceServer: { resource, scopes: ['read', 'write'] },
  });
  tokens = await authorization.signIn('dana', 'read write');
  bridge = await startBridge();
});

afterAll(async () => {
  for (const bridge of bridges) await bridge[Symbol.asyncDispose]();
  await authorization?.[Symbol.asyncDispose]();
});

function initialize(bridge: HttpBridge, token: string) {
  return fetch(bridge.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

describe('the types of JWT a real authorization server issues', () => {
  it('gives an ID token and an access token that differ in their type only', async () => {
    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
    expect(decodeProtectedHeader(tokens.id_token).typ).toBeUndefined();
    const [id, access] = [tokens.id_token, tokens.access_token].map(
      (token) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as never,
    ) as Array<Record<string, unknown>>;
    for (const claims of [id, access]) {
      expect(claims).toMatchObject({ iss: authorization.issuer, aud: resource, sub: 'dana' });
    }
  });

  it('refuses the ID token with 401 naming its type, and serves the access token', async () => {
    const refused = await initialize(bridge, tokens.id_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await refused.json()).toEqual({
      error: 'invalid_token',
      error_description:
        'The token has no "typ" header; this server accepts at+jwt: an ID token or another JWT of the issuer is not an access token (RFC 9068 §4).',
    });
    expect((await initialize(bridge, tokens.access_token)).status).toBe(200);
  });

  describe.each(['v1', 'v2'] as const)('the %s SDK client', (kind) => {
    it('connects and calls as the subject with the access token, and not with the ID token', async () => {
      await using client = await connectWithToken(kind, bridge.url, tokens.access_token);
      expect((await client.callTool('whoami')).content[0]?.text).toBe('auth:dana');
      expect((await client.callTool('write_note', { key: kind, text: 'x' })).content[0]?.text).toBe(
        `stored ${kind}`,
      );
      await expect(connectWithToken(kind, bridge.url, tokens.id_token)).rejects.toThrow(
        /401|nauthorized|invalid_token/,
      );
    });
  });

  it('takes the ID token too when told to accept JWTs without a type (--jwt-type "")', async () => {
    // An ID token carries no scope: read-only tools must need none.
    const untyped = await startBridge('--jwt-type', '', '--scope-read', '');
    await using client = await connectWithToken('v2', untyped.url, tokens.id_token);
    expect((await client.callTool('whoami')).content[0]?.text).toBe('auth:dana');
  });
});
