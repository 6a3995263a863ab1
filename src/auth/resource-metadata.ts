/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): the document that tells a client which
 * authorization server issues tokens for this server and which scopes exist. MCP clients find it
 * through the `resource_metadata` parameter of a `401` challenge, or at the well-known paths.
 */

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ResourceMetadataOptions {
  /** This server's canonical URL, e.g. `https://mcp.example.com/mcp`. */
  resource: string;
  /** Issuer URLs of the authorization servers whose tokens are accepted. */
  authorizationServers: readonly string[];
  /** The scopes this server understands. */
  scopes: readonly string[];
  /** A human-readable name. */
  resourceName?: string;
}

/** The RFC 9728 document. */
export function resourceMetadataDocument(options: ResourceMetadataOptions): Record<string, unknown> {
  return {
    resource: options.resource,
    ...(options.authorizationServers.length > 0
      ? { authorization_servers: [...options.authorizationServers] }
      : {}),
    scopes_supported: [...options.scopes],
    bearer_methods_supported: ['header'],
    ...(options.resourceName ? { resource_name: options.resourceName } : {}),
  };
}

/**
 * Where the document of `resource` lives (RFC 9728 §3.1): the well-known prefix inserted between
 * the host and the path, e.g. `https://h/mcp` → `https://h/.well-known/oauth-protected-resource/mcp`.
 */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${WELL_KNOWN}${path}`;
}

/**
 * Serves the document at the path-suffixed location and at the bare well-known path (which
 * clients try when the path-suffixed one is absent). `undefined` for any other path; `options`
 * is read per request because the resource URL may only be known once the server listens.
 */
export function resourceMetadataResponse(
  request: Request,
  url: URL,
  options: () => ResourceMetadataOptions | undefined,
): Response | undefined {
  if (url.pathname !== WELL_KNOWN && !url.pathname.startsWith(`${WELL_KNOWN}/`)) return undefined;
  const current = options();
  const suffixed = current ? new URL(resourceMetadataUrl(current.resource)).pathname : undefined;
  if (!current || (url.pathname !== WELL_KNOWN && url.pathname !== suffixed)) {
    return Response.json(
      { error: 'not_found', error_description: 'No protected resource lives at this path.' },
      { status: 404 },
    );
  }
  // Public metadata: any origin may read it (browser-based clients discover auth this way).
  const cors = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS' };
  if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: cors });
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response(null, { status: 405, headers: { ...cors, allow: 'GET, HEAD, OPTIONS' } });
  }
  return Response.json(resourceMetadataDocument(current), {
    headers: { ...cors, 'cache-control': 'public, max-age=300' },
  });
}
