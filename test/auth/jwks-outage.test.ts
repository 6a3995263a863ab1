// While the authorization server is down, requests must not turn into outbound fetches: a token that
// is not a JWS is refused before any key is looked up, and a failed metadata or JWKS fetch is not
// tried again before its backoff is over. The authorization server here counts what it receives.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { jwtVerifier } from '../../src/auth/jwt-verifier.js';
import { distPath, startHttpBridge } from '../helpers/start-bridge.js';
import { makeKey, mintToken, startJwksServer } from './jwks-server.js';

const resource = 'https://mcp.example.com/mcp';
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('a JWT verifier while the authorization server fails', () => {
  it('refuses what is not a well-formed JWS without fetching anything', async () => {
    await using jwks = await startJwksServer([await makeKey('k1')]);
    jwks.failing = true;
    const verifier = jwtVerifier({ issuer: jwks.issuer });
    const payload = b64({ sub: 'a' });
    const cases: Array<[string, string]> = [
      ['garbage', 'The token is not a valid signed JWT.'],
      ['a.b', 'The token is not a valid signed JWT.'],
      [`${b64({ alg: 'RS256' })}.${payload}.sig.extra.part`, 'The token is not a valid signed JWT.'],
      [`bm90IGpzb24.${payload}.AAAA`, 'The token is not a valid signed JWT.'],
      [`${b64({ alg: 'RS256' })}.bm90IGpzb24.AAAA`, 'The token is not a valid signed JWT.'],
      [
        `${b64({ alg: 'none' })}.${payload}.AAAA`,
        'The token is signed with an algorithm this server does not accept.',
      ],
      [
        `${b64({ alg: 'HS256' })}.${payload}.AAAA`,
        'The token is signed with an algorithm this server does not accept.',
      ],
    ];
    for (const [token, description] of cases) {
      expect(await verifier.verify(token, resource)).toEqual({ ok: false, description });
    }
    expect(jwks.metadataFetches).toBe(0);
    expect(jwks.fetches).toBe(0);
  });

  it('looks the issuer up again only after a backoff that grows, and recovers', async () => {
    const key = await makeKey('k1');
    await using jwks = await startJwksServer([key]);
    jwks.failing = true;
    const verifier = jwtVerifier({ issuer: jwks.issuer, failureBackoffMs: 300 });
    const token = await mintToken(key, { iss: jwks.issuer, aud: resource });
    for (let i = 0; i < 20; i++) {
      await expect(verifier.verify(token, resource)).rejects.toMatchObject({ code: 'upstream_failed' });
    }
    // One lookup: the two well-known documents of an issuer without a path, once each.
    expect(jwks.metadataFetches).toBe(2);
    await sleep(350);
    await expect(verifier.verify(token, resource)).rejects.toMatchObject({ code: 'upstream_failed' });
    expect(jwks.metadataFetches).toBe(4);
    // The second failure in a row waits twice as long.
    await sleep(350);
    await expect(verifier.verify(token, resource)).rejects.toMatchObject({ code: 'upstream_failed' });
    expect(jwks.metadataFetches).toBe(4);
    await sleep(300);
    jwks.failing = false;
    expect(await verifier.verify(token, resource)).toMatchObject({ ok: true });
    expect(jwks.metadataFetches).toBe(5);
    expect(jwks.fetches).toBe(1);
  });

  it('with a JWKS URL: one fetch per backoff, and the keys fetched before still serve', async () => {
    const known = await makeKey('k1');
    const unknown = await makeKey('k2');
    await using jwks = await startJwksServer([known]);
    const verifier = jwtVerifier({
      jwksUrl: new URL(jwks.jwksUrl),
      issuer: jwks.issuer,
      cooldownMs: 0,
      failureBackoffMs: 300,
    });
    const claims = { iss: jwks.issuer, aud: resource };
    expect(await verifier.verify(await mintToken(known, claims), resource)).toMatchObject({ ok: true });
    expect(jwks.fetches).toBe(1);

    jwks.failing = true;
    // A key id the server does not know makes it fetch the JWKS: once, then not during the backoff.
    const rotated = await mintToken(unknown, claims);
    for (let i = 0; i < 20; i++) {
      await expect(verifier.verify(rotated, resource)).rejects.toMatchObject({ code: 'upstream_failed' });
    }
    expect(jwks.fetches).toBe(2);
    expect(await verifier.verify(await mintToken(known, claims), resource)).toMatchObject({ ok: true });
    expect(jwks.fetches).toBe(2);

    await sleep(350);
    jwks.failing = false;
    jwks.keys = [known, unknown];
    expect(await verifier.verify(rotated, resource)).toMatchObject({ ok: true });
    expect(jwks.fetches).toBe(3);
  });

  it('with a JWKS URL that fails from the start: one fetch for many requests', async () => {
    const key = await makeKey('k1');
    await using jwks = await startJwksServer([key]);
    jwks.failing = true;
    const verifier = jwtVerifier({ jwksUrl: new URL(jwks.jwksUrl), issuer: jwks.issuer });
    const token = await mintToken(key, { iss: jwks.issuer, aud: resource });
    for (let i = 0; i < 20; i++) {
      await expect(verifier.verify(token, resource)).rejects.toMatchObject({ code: 'upstream_failed' });
    }
    expect(jwks.fetches).toBe(1);
  });
});

describe('a bridge with --auth jwt while its issuer is down', () => {
  it('answers 401 or 503 without a fetch per request, and logs one line for them all', async () => {
    const key = await makeKey('k1');
    await using jwks = await startJwksServer([key]);
    jwks.failing = true;
    await using bridge = await startHttpBridge({
      script: distPath('test/servers/auth-server.js'),
      args: ['notes', '--auth', 'jwt', '--issuer', jwks.issuer],
    });
    const token = await mintToken(key, { iss: jwks.issuer, aud: bridge.url.href });
    const post = (bearer: string) =>
      fetch(bridge.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
        body: '{}',
      });
    const statuses = new Map<number, number>();
    for (let i = 0; i < 50; i++) {
      for (const bearer of ['garbage', token]) {
        const { status } = await post(bearer);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: 50, 503: 50 });
    // The first well-formed token looked the issuer up (two documents); the rest waited.
    expect(jwks.metadataFetches).toBe(2);
    expect(jwks.fetches).toBe(0);
    const lines = bridge
      .stderr()
      .split('\n')
      .filter((line) => line.includes('cannot check tokens'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /warning: http: refused \(cannot check tokens\): POST from 127\.0\.0\.1 \(503\)/,
    );
  });
});
