import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { jwtVerifier } from '../../src/auth/jwt-verifier.js';
import { protectHttp } from '../../src/auth/protect-http.js';
import { ScopePolicy } from '../../src/auth/scopes.js';
import { silentLogger, ToolRegistry } from '../../src/index.js';
import { makeKey, mintToken, startJwksServer } from './jwks-server.js';

const resource = 'https://mcp.example.com/mcp';

describe('JWT verification against a JWKS', () => {
  it('caches keys, follows a key rotation, and forgets a retired key', async () => {
    const first = await makeKey('k1');
    const second = await makeKey('k2');
    await using jwks = await startJwksServer([first]);
    const verifier = jwtVerifier({ jwksUrl: new URL(jwks.jwksUrl), issuer: jwks.issuer, cooldownMs: 0 });
    const claims = { iss: jwks.issuer, aud: resource, scope: 'read' };

    for (let i = 0; i < 3; i++) {
      expect(await verifier.verify(await mintToken(first, claims), resource)).toMatchObject({ ok: true });
    }
    expect(jwks.fetches).toBe(1);

    jwks.keys = [second];
    const rotated = await verifier.verify(await mintToken(second, { ...claims, sub: 'bob' }), resource);
    expect(rotated).toMatchObject({
      ok: true,
      authInfo: { clientId: 'bob', scopes: ['read'], extra: { subject: 'bob', issuer: jwks.issuer } },
    });
    expect(jwks.fetches).toBe(2);

    const retired = await verifier.verify(await mintToken(first, claims), resource);
    expect(retired).toEqual({
      ok: false,
      description: 'The token is signed with a key this server does not know.',
    });
  });

  it('reads scopes from "scope" and "scp", accepts the resource with a trailing slash, requires exp and sub', async () => {
    const key = await makeKey('k1');
    await using jwks = await startJwksServer([key]);
    const verifier = jwtVerifier({ jwksUrl: new URL(jwks.jwksUrl), issuer: jwks.issuer });
    const base = { iss: jwks.issuer, aud: `${resource}/` };
    const scp = await verifier.verify(await mintToken(key, { ...base, scp: ['read', 'write'] }), resource);
    expect(scp).toMatchObject({ ok: true, authInfo: { scopes: ['read', 'write'] } });
    const noSubject = await verifier.verify(await mintToken(key, { ...base, sub: undefined }), resource);
    expect(noSubject).toEqual({ ok: false, description: 'The token has no "sub" claim.' });
    expect(await verifier.verify('not.a.jwt', resource)).toEqual({
      ok: false,
      description: 'The token is not a valid signed JWT.',
    });
  });

  it('takes only access tokens by their "typ" header (RFC 9068 §4), and other types when told to', async () => {
    const key = await makeKey('k1');
    await using jwks = await startJwksServer([key]);
    const claims = { iss: jwks.issuer, aud: resource };
    const typed = (typ: string | undefined) => mintToken(key, claims, { typ });
    const strict = jwtVerifier({ jwksUrl: new URL(jwks.jwksUrl), issuer: jwks.issuer });
    for (const typ of ['at+jwt', 'AT+JWT', 'application/at+jwt', 'Application/At+JWT']) {
      expect(await strict.verify(await typed(typ), resource), typ).toMatchObject({ ok: true });
    }
    expect(await strict.verify(await typed('JWT'), resource)).toEqual({
      ok: false,
      description:
        'The token is typed "JWT"; this server accepts at+jwt: an ID token or another JWT of the issuer is not an access token (RFC 9068 §4).',
    });
    for (const typ of [undefined, 'jwt', 'application/jwt', 'logout+jwt', 'at+jwt+x', 'text/at+jwt']) {
      expect(await strict.verify(await typed(typ), resource), String(typ)).toMatchObject({ ok: false });
    }
    // A type that is not a string at all, and one of megabytes, quoted at most 40 characters.
    expect(await strict.verify(await mintToken(key, claims, { typ: ['at+jwt'] }), resource)).toMatchObject({
      ok: false,
      description: expect.stringContaining('is typed ["at+jwt"]'),
    });
    const huge = await strict.verify(await typed(`a"${'b'.repeat(1_000_000)}`), resource);
    expect(huge).toMatchObject({
      ok: false,
      description: expect.stringContaining(`"a\\"${'b'.repeat(38)}…"`),
    });
    expect((huge as { description: string }).description.length).toBeLessThan(300);
    // Refused before any key is looked up.
    expect(jwks.fetches).toBe(1);

    const lenient = jwtVerifier({ jwksUrl: new URL(jwks.jwksUrl), issuer: jwks.issuer, types: ['JWT', ''] });
    for (const typ of ['at+jwt', 'JWT', 'jwt', 'application/JWT', undefined]) {
      expect(await lenient.verify(await typed(typ), resource), String(typ)).toMatchObject({ ok: true });
    }
    expect(await lenient.verify(await typed('logout+jwt'), resource)).toEqual({
      ok: false,
      description: expect.stringContaining('is typed "logout+jwt"; this server accepts at+jwt, JWT or none:'),
    });
  });

  it('refuses an unknown critical header and a token signed with none or an HMAC', async () => {
    const key = await makeKey('k1');
    await using jwks = await startJwksServer([key]);
    const verifier = jwtVerifier({ jwksUrl: new URL(jwks.jwksUrl), issuer: jwks.issuer });
    const claims = { iss: jwks.issuer, aud: resource };
    // Signed by a signer that understands the extension; the bridge does not, so must refuse it.
    const critical = await new SignJWT({ ...claims, sub: 'alice' })
      .setProtectedHeader({
        alg: 'ES256',
        kid: 'k1',
        typ: 'at+jwt',
        crit: ['urn:example:must'],
        'urn:example:must': 1,
      })
      .setExpirationTime('5m')
      .sign(key.privateKey, { crit: { 'urn:example:must': true } });
    expect(await verifier.verify(critical, resource)).toEqual({
      ok: false,
      description: 'The token is not a valid signed JWT.',
    });
    const good = await mintToken(key, claims);
    const [, payload, signature] = good.split('.');
    for (const alg of ['none', 'HS256']) {
      const header = Buffer.from(JSON.stringify({ alg, kid: 'k1', typ: 'at+jwt' })).toString('base64url');
      expect(await verifier.verify(`${header}.${payload}.${signature}`, resource), alg).toEqual({
        ok: false,
        description: 'The token is signed with an algorithm this server does not accept.',
      });
    }
    const early = await mintToken(key, { ...claims, nbf: Math.floor(Date.now() / 1000) + 120 });
    expect(await verifier.verify(early, resource)).toMatchObject({
      ok: false,
      description: expect.stringContaining('"nbf"'),
    });
  });

  it("finds the JWKS in the issuer's metadata when no URL is given, and checks that it names the issuer", async () => {
    const key = await makeKey('k1');
    await using jwks = await startJwksServer([key]);
    const discovered = jwtVerifier({ issuer: jwks.issuer });
    const token = await mintToken(key, { iss: jwks.issuer, aud: resource });
    expect(await discovered.verify(token, resource)).toMatchObject({ ok: true });
    expect(jwks.fetches).toBe(1);

    jwks.metadataIssuer = 'https://look-alike.example.com';
    const fooled = jwtVerifier({ issuer: jwks.issuer });
    await expect(fooled.verify(token, resource)).rejects.toThrow(/names the issuer "https:\/\/look-alike/);

    // The server's own value is quoted, at most 100 characters of it.
    jwks.metadataIssuer = `https://x.example/${'y'.repeat(100_000)}`;
    const error = await jwtVerifier({ issuer: jwks.issuer })
      .verify(token, resource)
      .catch((failure: Error) => failure);
    expect((error as Error).message).toContain(`names the issuer "https://x.example/${'y'.repeat(82)}…"`);
    expect((error as Error).message.length).toBeLessThan(600);
  });

  it('answers 503, not 401, when the signing keys cannot be fetched', async () => {
    const key = await makeKey('k1');
    const jwks = await startJwksServer([key]);
    const { jwksUrl, issuer } = jwks;
    await jwks[Symbol.asyncDispose]();
    const verifier = jwtVerifier({ jwksUrl: new URL(jwksUrl), issuer });
    await expect(
      verifier.verify(await mintToken(key, { iss: issuer, aud: resource }), resource),
    ).rejects.toMatchObject({
      code: 'upstream_failed',
    });

    const protection = protectHttp({
      verifier,
      scopes: new ScopePolicy(),
      resource,
      authorizationServers: [issuer],
      log: silentLogger,
    });
    protection.attach({ registry: () => new ToolRegistry([]) });
    const token = await mintToken(key, { iss: issuer, aud: resource });
    const answer = await protection.authenticate(
      new Request(resource, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' }),
      { address: '127.0.0.1' },
    );
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(503);
  });
});

describe('scope policy', () => {
  it('derives scopes from annotations, lets write imply read, and applies per-tool overrides', () => {
    const policy = new ScopePolicy({ tools: { purge: ['admin', 'write'] } });
    const reader = { name: 'list', annotations: { readOnlyHint: true } };
    const writer = { name: 'create', annotations: { readOnlyHint: false } };
    expect(policy.required(reader)).toEqual(['read']);
    expect(policy.required(writer)).toEqual(['write']);
    expect(policy.missing(policy.required(reader), ['write'])).toEqual([]);
    expect(policy.missing(policy.required(writer), ['read'])).toEqual(['write']);
    expect(policy.required({ name: 'purge', annotations: { readOnlyHint: false } })).toEqual([
      'admin',
      'write',
    ]);
    expect(policy.supported()).toEqual(['read', 'write', 'admin']);
    const open = new ScopePolicy({ read: '' });
    expect(open.required(reader)).toEqual([]);
    expect(open.baseline()).toEqual([]);
  });
});
