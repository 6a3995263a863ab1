import type { createRemoteJWKSet, JWTPayload, JWTVerifyGetKey } from 'jose';

// jose takes ~50 ms to load: only servers that verify JWTs pay for it, on the first token.
let joseModule: Promise<typeof import('jose')> | undefined;
const loadJose = () => {
  joseModule ??= import('jose');
  return joseModule;
};

import { mebibytes } from '../count-of.js';
import { BridgeError, describeError } from '../errors.js';
import { quote } from '../quote-input.js';
import { MAX_AUTH_RESPONSE_BYTES, readResponseText } from '../read-response-body.js';
import { discoverJwksUrl } from './discover-jwks.js';
import { FailureBackoff } from './failure-backoff.js';
import type { TokenVerifier, Verification } from './token-verifier.js';

export interface JwtVerifierOptions {
  /** Where the authorization server publishes its signing keys; default: found in the issuer's metadata. */
  jwksUrl?: URL;
  /** The `iss` every token must carry. */
  issuer: string;
  /** Seconds of clock skew tolerated on `exp` / `nbf` / `iat`. Default 30. */
  clockToleranceSeconds?: number;
  /** How long fetched keys are trusted before a refetch, in ms. Default 10 minutes. */
  cacheMaxAgeMs?: number;
  /** Least time between two refetches triggered by an unknown key id, in ms. Default 30 s. */
  cooldownMs?: number;
  /**
   * After the metadata or the JWKS could not be fetched, how long before the next try, in ms;
   * doubles with each failure in a row, up to a minute. Default 2 s.
   */
  failureBackoffMs?: number;
  /**
   * `typ` header values accepted besides `at+jwt` (compared without case, with or without
   * `application/`); `""` accepts a token without one. Default: none, only `at+jwt`.
   */
  types?: readonly string[];
}

type RemoteKeys = ReturnType<typeof createRemoteJWKSet>;

// Asymmetric algorithms only: a JWKS holds public keys, and an HMAC "key" in it would be a secret
// anyone who can read the JWKS could sign with.
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/**
 * Verifies JWT access tokens (RFC 9068) against the authorization server's JWKS: the `typ` header
 * (`at+jwt`, §4), signature, issuer, audience (this server's resource URL, RFC 8707), expiry
 * (required) and not-before.
 * Keys are cached; a token signed with an unknown key id triggers a refetch (at most once per
 * cooldown), which is how key rotation reaches the server without a restart. Without a JWKS URL,
 * the first verification looks it up in the issuer's metadata. A token that is not even a
 * well-formed JWS is refused before any of that; a failed lookup or JWKS fetch is not tried again
 * before its backoff is over (`failureBackoffMs`), so bad tokens cannot make the server fetch in a loop.
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const backoffMs = options.failureBackoffMs ?? 2_000;
  const types = [ACCESS_TOKEN_TYPE, ...(options.types ?? [])];
  const discovery = new FailureBackoff(backoffMs);
  let keySet: { keys: Promise<JWTVerifyGetKey>; failed: boolean } | undefined;
  const resolveKeys = () => {
    // A failed lookup is kept (and answered again, without a fetch) until its backoff is over.
    if (keySet && (!keySet.failed || discovery.waitMs() > 0)) return keySet.keys;
    const state = {
      keys: (options.jwksUrl ? Promise.resolve(options.jwksUrl) : discoverJwksUrl(options.issuer)).then(
        async (url) => {
          const jose = await loadJose();
          return guardFetches(
            url,
            jose.createRemoteJWKSet(url, {
              cacheMaxAge: options.cacheMaxAgeMs ?? 600_000,
              cooldownDuration: options.cooldownMs ?? 30_000,
              timeoutDuration: 5_000,
              [jose.customFetch]: fetchKeySet,
            }),
            new FailureBackoff(backoffMs),
          );
        },
      ),
      failed: false,
    };
    keySet = state;
    state.keys.then(
      () => discovery.succeeded(),
      () => {
        state.failed = true;
        discovery.failed();
      },
    );
    return state.keys;
  };
  return {
    async verify(token, resource): Promise<Verification> {
      // Checked before any key is looked up: garbage must not make the server fetch anything.
      const jose = await loadJose();
      const malformed = notASignedJwt(token, jose) ?? notAnAccessToken(token, types, jose);
      if (malformed) return { ok: false, description: malformed };
      // Throws when the keys cannot be found: the server's problem (503), not the token's.
      const keys = await resolveKeys();
      const { jwtVerify, errors } = jose;
      // Accept the resource with and without a trailing slash: authorization servers differ.
      const audience = [resource.replace(/\/$/, ''), `${resource.replace(/\/$/, '')}/`];
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          audience,
          algorithms: ALGORITHMS,
          requiredClaims: ['exp', 'sub'],
          clockTolerance: options.clockToleranceSeconds ?? 30,
        }));
      } catch (error) {
        return { ok: false, description: rejection(error, resource, errors) };
      }
      // The subject names the caller that owns pages, tasks and sessions: a number, an object or
      // "" would let unrelated tokens collapse into one identity (String(123) === String("123")).
      if (typeof payload.sub !== 'string' || payload.sub.trim() === '') {
        return { ok: false, description: 'The token\'s "sub" claim must be a non-empty string.' };
      }
      const subject = payload.sub;
      const clientId = stringClaim(payload.client_id) ?? stringClaim(payload.azp) ?? subject;
      return {
        ok: true,
        authInfo: {
          token,
          clientId,
          scopes: scopesOf(payload),
          ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp } : {}),
          resource: new URL(resource),
          extra: { subject, issuer: payload.iss },
        },
      };
    },
  };
}

/**
 * Wraps jose's remote key set so that a failed JWKS fetch is not retried by the next request: jose
 * remembers only successful fetches, so while the JWKS is down every token would fetch it again.
 * During the backoff, the keys fetched last (while still within their cache age) serve alone;
 * a token they cannot check gets the 503 of unreachable keys.
 */
function guardFetches(url: URL, remote: RemoteKeys, backoff: FailureBackoff): JWTVerifyGetKey {
  let lastFailure = '';
  let fallback: JWTVerifyGetKey | undefined;
  const unavailable = () =>
    new BridgeError(
      'upstream_failed',
      `the signing keys at ${url.href} could not be fetched (${lastFailure}); next try in ${Math.ceil(backoff.waitMs() / 1000)} s`,
    );
  return async (header, token) => {
    const { errors, createLocalJWKSet } = await loadJose();
    if (backoff.waitMs() > 0) {
      if (!fallback || !remote.fresh) throw unavailable();
      try {
        return await fallback(header, token);
      } catch (error) {
        if (error instanceof errors.JWKSNoMatchingKey) throw unavailable();
        throw error;
      }
    }
    try {
      const key = await remote(header, token);
      backoff.succeeded();
      return key;
    } catch (error) {
      if (!isFetchFailure(error, errors)) throw error;
      lastFailure = describeError(error);
      const cached = remote.jwks();
      fallback = cached ? createLocalJWKSet(cached) : undefined;
      backoff.failed();
      throw error;
    }
  };
}

/**
 * The fetch jose's remote key set makes, with the body read up to `MAX_AUTH_RESPONSE_BYTES` (as
 * every answer of an authorization server is, see read-response-body.ts): jose reads it whole
 * (`response.json()`), and a key set without end was held until its 5 s timeout, hundreds of MiB.
 */
async function fetchKeySet(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  // jose refuses any other status without reading the body.
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    return response;
  }
  const text = await readResponseText(
    response,
    MAX_AUTH_RESPONSE_BYTES,
    () => new Error(`the key set at ${url} answered with more than ${mebibytes(MAX_AUTH_RESPONSE_BYTES)}`),
  );
  return new Response(text, { status: 200, headers: response.headers });
}

// What jose throws when the JWKS could not be had (network, timeout, a non-200 answer, not a JWKS)
// rather than because of the token.
function isFetchFailure(error: unknown, errors: typeof import('jose').errors): boolean {
  if (!(error instanceof errors.JOSEError)) return true;
  return (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    error.code === 'ERR_JOSE_GENERIC'
  );
}

const NOT_A_JWT = 'The token is not a valid signed JWT.';

/**
 * Why `token` cannot be a JWS this server accepts (three base64url parts, a JSON header naming an
 * accepted algorithm, a JSON payload), or `undefined` when it may be: the checks that need no key.
 */
function notASignedJwt(
  token: string,
  jose: Pick<typeof import('jose'), 'decodeJwt' | 'decodeProtectedHeader'>,
): string | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) return NOT_A_JWT;
  let alg: unknown;
  try {
    alg = jose.decodeProtectedHeader(token).alg;
    jose.decodeJwt(token); // a JSON object as its payload
  } catch {
    return NOT_A_JWT;
  }
  if (typeof alg !== 'string' || !ALGORITHMS.includes(alg)) {
    return 'The token is signed with an algorithm this server does not accept.';
  }
  return undefined;
}

/** The `typ` of a JWT access token (RFC 9068 §2.1), as `normalizeType` writes it. */
const ACCESS_TOKEN_TYPE = 'at+jwt';

// A media type of `typ` is compared without case, and `application/` may be left out (RFC 7515 §4.1.9).
function normalizeType(type: string): string {
  return type.toLowerCase().replace(/^application\//, '');
}

/**
 * Why `token` is not an access token by its `typ` header, or `undefined` when it is: RFC 9068 §4
 * has resource servers refuse any other type, so an ID token (or a logout token, a signed
 * introspection answer) from the same issuer is not taken for one. Checked before any key is looked up.
 */
function notAnAccessToken(
  token: string,
  accepted: readonly string[],
  jose: Pick<typeof import('jose'), 'decodeProtectedHeader'>,
): string | undefined {
  const { typ } = jose.decodeProtectedHeader(token);
  const type = typeof typ === 'string' ? normalizeType(typ) : undefined;
  if (accepted.some((allowed) => (allowed === '' ? typ === undefined : normalizeType(allowed) === type))) {
    return undefined;
  }
  const names = accepted.map((allowed) => (allowed === '' ? 'none' : allowed));
  const expected = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names[0];
  const found = typ === undefined ? 'has no "typ" header' : `is typed ${quote(typ, 40)}`;
  return `The token ${found}; this server accepts ${expected}: an ID token or another JWT of the issuer is not an access token (RFC 9068 §4).`;
}

// A token problem becomes a 401 reason; anything else (keys unreachable, a broken JWKS) means the
// server cannot decide and is thrown, to become a 503 rather than send the client to re-authorize.
function rejection(error: unknown, resource: string, errors: typeof import('jose').errors): string {
  if (error instanceof errors.JWTExpired) return 'The token has expired.';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud')
      return `The token was not issued for this server (its audience must be ${resource}).`;
    if (error.claim === 'iss') return 'The token was issued by another authorization server.';
    if (error.reason === 'missing') return `The token has no "${error.claim}" claim.`;
    return `The token's "${error.claim}" claim is not acceptable.`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'The token signature is invalid.';
  if (error instanceof errors.JWKSNoMatchingKey)
    return 'The token is signed with a key this server does not know.';
  if (error instanceof errors.JOSEAlgNotAllowed)
    return 'The token is signed with an algorithm this server does not accept.';
  if (
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JOSENotSupported ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return 'The token is not a valid signed JWT.';
  }
  throw new BridgeError('upstream_failed', `could not verify the token: ${describeError(error)}`, {
    cause: error,
  });
}

// `scope` is the RFC 9068 / RFC 8693 claim (space-separated); some providers use `scp` (a list).
function scopesOf(payload: JWTPayload): string[] {
  const scopes = new Set<string>();
  for (const claim of [payload.scope, payload.scp]) {
    const values = typeof claim === 'string' ? claim.split(' ') : Array.isArray(claim) ? claim : [];
    for (const value of values) if (typeof value === 'string' && value) scopes.add(value);
  }
  return [...scopes];
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}
