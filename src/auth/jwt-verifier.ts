import type { createRemoteJWKSet, JWTPayload } from 'jose';

// jose takes ~50 ms to load: only servers that verify JWTs pay for it, on the first token.
let joseModule: Promise<typeof import('jose')> | undefined;
const loadJose = () => {
  joseModule ??= import('jose');
  return joseModule;
};

import { BridgeError, describeError } from '../errors.js';
import { discoverJwksUrl } from './discover-jwks.js';
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
}

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
 * Verifies JWT access tokens (RFC 9068) against the authorization server's JWKS: signature,
 * issuer, audience (this server's resource URL, RFC 8707), expiry (required) and not-before.
 * Keys are cached; a token signed with an unknown key id triggers a refetch (at most once per
 * cooldown), which is how key rotation reaches the server without a restart. Without a JWKS URL,
 * the first verification looks it up in the issuer's metadata (and retries on the next if that fails).
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  let keySet: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const resolveKeys = () => {
    if (keySet) return keySet;
    const pending = (
      options.jwksUrl ? Promise.resolve(options.jwksUrl) : discoverJwksUrl(options.issuer)
    ).then(async (url) =>
      (await loadJose()).createRemoteJWKSet(url, {
        cacheMaxAge: options.cacheMaxAgeMs ?? 600_000,
        cooldownDuration: options.cooldownMs ?? 30_000,
        timeoutDuration: 5_000,
      }),
    );
    keySet = pending;
    pending.catch(() => {
      if (keySet === pending) keySet = undefined;
    });
    return pending;
  };
  return {
    async verify(token, resource): Promise<Verification> {
      // Throws when the keys cannot be found: the server's problem (503), not the token's.
      const keys = await resolveKeys();
      const { jwtVerify, errors } = await loadJose();
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
