import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { discoverJwksUrl } from '../../src/auth/discover-jwks.js';
import { jwtVerifier } from '../../src/auth/jwt-verifier.js';
import { exchangeCode, refreshTokens } from '../../src/sign-in/token-endpoint.js';
import { startFlood } from '../helpers/flood.js';
import { makeKey, mintToken } from './jwks-server.js';

// What the bridge reads of an authorization server's answers: tokens and discovery documents are
// small, and one that never ends is read up to 1 MiB, not held whole.
describe("an authorization server's answer without end", () => {
  it.each([
    [
      'a sign-in code exchange',
      (url: string) => exchangeCode(client(url), 'code', 'http://127.0.0.1/cb', 'v'),
    ],
    ['a refresh', (url: string) => refreshTokens(client(url), 'refresh')],
  ])('to %s is read up to 1 MiB', async (_label, request) => {
    await using flood = await startFlood();
    await expect(request(`${flood.url}/token`)).rejects.toThrow(/answered with more than 1 MiB/);
    expect(await flood.written()).toBeLessThan(16 * 1024 * 1024);
  });

  it('to a discovery request is read up to 1 MiB, for every document asked for', async () => {
    await using flood = await startFlood();
    await expect(discoverJwksUrl(`${flood.url}/tenant`)).rejects.toThrow(/more than 1 MiB/);
    expect(await flood.written()).toBeLessThan(3 * 16 * 1024 * 1024);
  });

  // jose reads the key set it fetches whole (`response.json()`) for as long as its 5 s timeout.
  it('to a key set request is read up to 1 MiB', async () => {
    await using flood = await startFlood();
    const verifier = jwtVerifier({ jwksUrl: new URL(`${flood.url}/jwks.json`), issuer: flood.url });
    const token = await mintToken(await makeKey('k1'), {
      iss: flood.url,
      aud: 'https://mcp.example.com/mcp',
    });
    await expect(verifier.verify(token, 'https://mcp.example.com/mcp')).rejects.toThrow(/more than 1 MiB/);
    expect(await flood.written()).toBeLessThan(16 * 1024 * 1024);
  });
});

// A refusal's reason goes into a tool's result and the sign-in page: the start of it, however long.
describe("a token endpoint's refusal", () => {
  const long = 'x'.repeat(500_000);
  it.each([
    ['an OAuth error with a long description', { error: 'invalid_grant', error_description: long }],
    ['a long OAuth error code', { error: long }],
    ['a body that is not JSON', `<html>${long}</html>`],
  ])('quotes the start of %s', async (_label, body) => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
      const failure = await refreshTokens(client(url), 'refresh').then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(failure).toMatch(/answered HTTP 400: .*x{100}/);
      expect(failure?.length).toBeLessThan(1_000);
    } finally {
      server.close();
    }
  });
});

function client(tokenUrl: string) {
  return { tokenUrl, clientId: 'bridge', timeoutMs: 30_000 };
}
