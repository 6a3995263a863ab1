/**
 * The HTTP answers of a protected resource (RFC 6750 §3, MCP authorization "Error Handling"):
 * `401` when the token is missing or bad, `403` when it lacks a scope. Both carry a
 * `WWW-Authenticate: Bearer …` challenge naming the protected-resource metadata document
 * (RFC 9728 §5.1) and the scopes that would do; the body is the OAuth error JSON.
 */

/** Why a request was refused. `undefined` code: no credentials at all. */
export interface Refusal {
  status: 401 | 403;
  /** RFC 6750 error code; absent when the request carried no token (RFC 6750 §3.1). */
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  description: string;
  /** Scopes that would satisfy this request. */
  scopes?: readonly string[];
}

/** Builds the refusal response, pointing at `resourceMetadataUrl`. */
export function challengeResponse(refusal: Refusal, resourceMetadataUrl: string): Response {
  const params: string[] = [];
  if (refusal.error) params.push(`error="${quote(refusal.error)}"`);
  if (refusal.error) params.push(`error_description="${quote(refusal.description)}"`);
  if (refusal.scopes && refusal.scopes.length > 0) params.push(`scope="${quote(refusal.scopes.join(' '))}"`);
  params.push(`resource_metadata="${quote(resourceMetadataUrl)}"`);
  const body = { error: refusal.error ?? 'invalid_token', error_description: refusal.description };
  return Response.json(body, {
    status: refusal.status,
    headers: { 'www-authenticate': `Bearer ${params.join(', ')}`, 'cache-control': 'no-store' },
  });
}

/** A `503` for when the server cannot check tokens right now (signing keys unreachable, starting up). */
export function unavailableResponse(description: string): Response {
  return Response.json(
    { error: 'temporarily_unavailable', error_description: description },
    { status: 503, headers: { 'retry-after': '5', 'cache-control': 'no-store' } },
  );
}

// quoted-string content: escape `\` and `"`, and keep to printable ASCII so the header stays valid.
function quote(value: string): string {
  return value.replace(/[\\"]/g, '\\$&').replace(/[^\x20-\x7e]/g, ' ');
}
