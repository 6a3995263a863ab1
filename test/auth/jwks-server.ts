import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** A signing key with its public JWK. */
export interface TestKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function makeKey(kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** An authorization server's key endpoint on 127.0.0.1:0; `keys` may be swapped to rotate. */
export interface JwksServer extends AsyncDisposable {
  issuer: string;
  jwksUrl: string;
  keys: TestKey[];
  /** How many times the JWKS was fetched (failed fetches included). */
  fetches: number;
  /** How many times a metadata document was asked for (failed ones included). */
  metadataFetches: number;
  /** While true, the metadata and the JWKS are answered with 500: an authorization server that is down. */
  failing: boolean;
  /** Makes the metadata document name another issuer (a look-alike server). */
  metadataIssuer: string;
}

export async function startJwksServer(keys: TestKey[]): Promise<JwksServer> {
  const state: {
    keys: TestKey[];
    fetches: number;
    metadataFetches: number;
    failing: boolean;
    metadataIssuer?: string;
  } = { keys, fetches: 0, metadataFetches: 0, failing: false };
  let origin = '';
  const server = createServer((request, response) => {
    if (request.url?.startsWith('/.well-known/')) state.metadataFetches++;
    if (request.url === '/jwks.json') state.fetches++;
    if (state.failing) {
      response.writeHead(500).end();
      return;
    }
    if (request.url === '/.well-known/oauth-authorization-server') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ issuer: state.metadataIssuer ?? origin, jwks_uri: `${origin}/jwks.json` }),
      );
      return;
    }
    if (request.url !== '/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: state.keys.map((key) => key.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    set metadataIssuer(value: string) {
      state.metadataIssuer = value;
    },
    issuer: origin,
    jwksUrl: `${origin}/jwks.json`,
    get keys() {
      return state.keys;
    },
    set keys(next) {
      state.keys = next;
    },
    get metadataFetches() {
      return state.metadataFetches;
    },
    get failing() {
      return state.failing;
    },
    set failing(value) {
      state.failing = value;
    },
    get fetches() {
      return state.fetches;
    },
    set fetches(value) {
      state.fetches = value;
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Signs an access token; every claim can be overridden (or removed with `undefined`), and so can
 * the protected header's members but `alg` (`typ: undefined` leaves the type out).
 */
export async function mintToken(
  key: TestKey,
  claims: { iss: string; aud: string; sub?: string; scope?: string; expiresIn?: number } & Record<
    string,
    unknown
  >,
  header: Record<string, unknown> = {},
): Promise<string> {
  const { expiresIn = 300, ...payload } = claims;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'alice', ...payload })
    .setProtectedHeader({ kid: key.kid, typ: 'at+jwt', ...header, alg: 'ES256' })
    .setIssuedAt(now)
    .setExpirationTime(now + expiresIn)
    .sign(key.privateKey);
}
