import { mebibytes } from '../count-of.js';
import { BridgeError, describeError } from '../errors.js';
import { isPlainObject } from '../plain-object.js';
import { quote } from '../quote-input.js';
import { MAX_AUTH_RESPONSE_BYTES, readResponseText } from '../read-response-body.js';

/**
 * Finds the JWKS URL of an authorization server from its metadata: RFC 8414
 * (`/.well-known/oauth-authorization-server` inserted before the issuer's path), then OpenID
 * Connect discovery (inserted, then appended). The document must name the
 * same `issuer` (RFC 8414 §3.3), or a look-alike server could hand out its own keys.
 */
export async function discoverJwksUrl(issuer: string, signal?: AbortSignal): Promise<URL> {
  const base = new URL(issuer);
  const path = base.pathname === '/' ? '' : base.pathname.replace(/\/$/, '');
  // The order MCP clients use (RFC 8414 §3.1 and §5): path insertion first, then appending.
  const candidates = [
    `${base.origin}/.well-known/oauth-authorization-server${path}`,
    ...(path ? [`${base.origin}/.well-known/openid-configuration${path}`] : []),
    `${base.origin}${path}/.well-known/openid-configuration`,
  ];
  const failures: string[] = [];
  for (const candidate of candidates) {
    let document: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const response = await fetch(candidate, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.any([AbortSignal.timeout(5_000), ...(signal ? [signal] : [])]),
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => {});
        failures.push(`${candidate}: HTTP ${response.status}`);
        continue;
      }
      const text = await readResponseText(
        response,
        MAX_AUTH_RESPONSE_BYTES,
        () => new Error(`more than ${mebibytes(MAX_AUTH_RESPONSE_BYTES)}`),
      );
      const parsed: unknown = JSON.parse(text);
      if (!isPlainObject(parsed)) throw new Error('the metadata is not a JSON object');
      document = parsed;
    } catch (error) {
      failures.push(`${candidate}: ${describeError(error)}`);
      continue;
    }
    if (document.issuer !== issuer) {
      throw new BridgeError(
        'upstream_failed',
        `${candidate} names the issuer ${quote(document.issuer)}, not ${issuer}`,
      );
    }
    if (typeof document.jwks_uri !== 'string') {
      throw new BridgeError('upstream_failed', `${candidate} has no jwks_uri: pass --jwks-url`);
    }
    return new URL(document.jwks_uri);
  }
  throw new BridgeError(
    'upstream_failed',
    `could not find the signing keys of ${issuer} (${failures.join('; ')}); pass --jwks-url`,
  );
}
