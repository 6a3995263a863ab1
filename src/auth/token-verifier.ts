import type { AuthInfo } from '@modelcontextprotocol/server';

/** The outcome of checking one bearer token. */
export type Verification = { ok: true; authInfo: AuthInfo } | { ok: false; description: string };

/**
 * Checks bearer tokens. `verify` answers `ok: false` with a reason the client may see for a token
 * that is not acceptable, and throws (a `BridgeError` with code `upstream_failed`) only when it
 * cannot decide, e.g. the signing keys are unreachable: that is the server's fault, not the token's.
 *
 * The `AuthInfo` it returns must carry `extra.subject`: resources and tasks are bound to it.
 */
export interface TokenVerifier {
  /** `resource` is this server's canonical URL: tokens must have been issued for it. */
  verify(token: string, resource: string): Promise<Verification>;
}

/** Extracts the token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1). */
export function bearerToken(header: string | null): { token?: string; malformed?: string } {
  if (header === null || header.trim() === '') return {};
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (!match?.[1]) {
    return { malformed: 'The Authorization header must be "Bearer <token>".' };
  }
  return { token: match[1] };
}
