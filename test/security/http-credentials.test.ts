// Class: credentials that must not stand for a caller. A JWT whose subject is not a non-empty
// string would merge unrelated tokens into one owner; a short static token on an exposed bind
// can be guessed. Each row is refused, and a good credential still works afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JwksServer, makeKey, mintToken, startJwksServer, type TestKey } from '../auth/jwks-server.js';
import { type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { AUTH_SERVER, refusedStart } from './helpers.js';

describe('JWT subjects', () => {
  let jwks: JwksServer;
  let bridge: HttpBridge;
  let key: TestKey;
  beforeAll(async () => {
    key = await makeKey('key-1');
    jwks = await startJwksServer([key]);
    bridge = await startHttpBridge({
      script: AUTH_SERVER,
      args: ['notes', '--auth', 'jwt', '--jwks-url', jwks.jwksUrl, '--issuer', jwks.issuer],
    });
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
    await jwks?.[Symbol.asyncDispose]();
  });

  async function whoami(sub: unknown): Promise<{ status: number; text: string }> {
    const token = await mintToken(key, {
      iss: jwks.issuer,
      aud: bridge.url.href,
      scope: 'read',
      sub,
    } as never);
    const response = await fetch(bridge.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'whoami',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'whoami',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const header = response.headers.get('www-authenticate') ?? '';
    return { status: response.status, text: `${header} ${await response.text()}` };
  }

  it.each([
    ['a number', 123],
    ['an empty string', ''],
    ['blanks', '   '],
    ['an object', { id: 'alice' }],
    ['an array', ['alice']],
    ['null', null],
  ])('sub as %s: 401 naming the claim', async (_label, sub) => {
    const answer = await whoami(sub);
    expect(answer.status).toBe(401);
    // The challenge header escapes the quotes: sub\" claim.
    expect(answer.text).toMatch(/sub\\?" claim/);
    expect(answer.text).not.toMatch(/auth:/);
  });

  it('a string subject is the caller', async () => {
    const answer = await whoami('alice');
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('auth:alice');
  });
});

describe('static tokens too short to expose', () => {
  it.each([
    ['on 0.0.0.0', '0.0.0.0:0', 'short-token', 2],
    ['with a subject, on a LAN address', '0.0.0.0:0', 'abc123 alice', 2],
  ])('%s: refused at start with a message', async (_label, address, tokens, code) => {
    const { code: exit, stderr } = await refusedStart(['--auth-tokens-env', 'T', '--http', address], {
      T: tokens,
    });
    expect(exit).toBe(code);
    expect(stderr).toMatch(/shorter than 16 characters/);
    expect(stderr).toMatch(/openssl rand/);
    expect(stderr).not.toContain(tokens.split(' ')[0]);
  });

  it('the same short token is accepted on a loopback bind', async () => {
    await using bridge = await startHttpBridge({
      script: AUTH_SERVER,
      args: ['notes', '--auth-tokens-env', 'T'],
      env: { T: 'short alice' },
    });
    const response = await fetch(bridge.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer short' },
      body: '{}',
    });
    expect(response.status).not.toBe(401);
  });
});
