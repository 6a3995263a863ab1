import { describe, expect, it } from 'vitest';
import { discoverJwksUrl } from '../../src/auth/discover-jwks.js';
import { jwtVerifier } from '../../src/auth/jwt-verifier.js';
import { exchangeCode, refreshTokens } from '../../src/sign-in/token-endpoint.js';
import { startFixedAnswer, startFlood } from '../helpers/flood.js';
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
    await using endpoint = await startFixedAnswer(
      400,
      typeof body === 'string' ? body : JSON.stringify(body),
    );
    const failure = await refreshTokens(client(`${endpoint.url}/token`), 'refresh').then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/answered HTTP 400: .*x{100}.*characters in all\]$/);
    expect(failure?.length).toBeLessThan(1_000);
  });

  it('that is JSON but no object is quoted as text', async () => {
    await using endpoint = await startFixedAnswer(200, 'null');
    await expect(refreshTokens(client(`${endpoint.url}/token`), 'refresh')).rejects.toThrow(
      /answered HTTP 200: null$/,
    );
  });
});

function client(tokenUrl: string) {
  return { tokenUrl, clientId: 'bridge', timeoutMs: 30_000 };
}
