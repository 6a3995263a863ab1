import type { AuthInfo } from '@modelcontextprotocol/server';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ToolRegistry } from '../registry.js';
import type { Peer } from '../transports/peer-quota-key.js';
import { RefusalLog } from '../transports/refusal-log.js';
import { challengeResponse, type Refusal, unavailableResponse } from './challenge.js';
import { requestedTools } from './requested-tools.js';
import { resourceMetadataResponse, resourceMetadataUrl } from './resource-metadata.js';
import type { ScopePolicy } from './scopes.js';
import { bearerToken, type TokenVerifier } from './token-verifier.js';

export interface ProtectHttpOptions {
  verifier: TokenVerifier;
  scopes: ScopePolicy;
  /** This server's canonical URL; `undefined`: the URL it listens on, known after `attach`. */
  resource?: string;
  /** Issuers named in the metadata document. */
  authorizationServers: readonly string[];
  resourceName?: string;
  log: Logger;
}

/** What `serve()` needs to protect its HTTP endpoint, plus the late binding to the running bridge. */
export interface HttpProtection {
  /**
   * The `authenticate` hook of the HTTP handler, from the headers alone (before the body is read):
   * a refusal, or the caller's `AuthInfo` (none: anonymous).
   */
  authenticate(request: Request, peer: Peer): Promise<Response | { authInfo?: AuthInfo }>;
  /** The `authorize` hook, once the body is parsed: a refusal (e.g. a missing scope), or nothing. */
  authorize?(request: Request, authInfo: AuthInfo, parsedBody: unknown): Promise<Response | undefined>;
  /** The `routes` hook: the protected-resource metadata documents. */
  routes(request: Request, url: URL): Response | undefined;
  /**
   * Binds the running bridge: its tools (for per-tool scopes), its URL (the default resource) and
   * its end, when the count of refusals the log left out since its last line is logged.
   */
  attach(bridge: { url?: string; registry(): ToolRegistry; closed?: Promise<void> }): void;
  /** The peers that are trusted reverse proxies (see `HttpTransportOptions.proxies`). */
  proxies?: (address: string | undefined) => boolean;
}

/**
 * Protects the MCP endpoint: every request needs a valid bearer token, and a `tools/call` needs
 * the scopes of the tool it calls. Refusals follow RFC 6750 and the MCP authorization spec (401
 * with a challenge naming the metadata document, 403 `insufficient_scope` naming the scopes).
 * Tokens are neither logged nor passed on: they reach tool handlers only inside `AuthInfo`.
 */
export function protectHttp(options: ProtectHttpOptions): HttpProtection {
  const { verifier, scopes, log } = options;
  let resource = options.resource;
  let registry: (() => ToolRegistry) | undefined;
  // Failed authentications are worth a warning (someone is guessing, or a client is misconfigured),
  // but a flood of them must not flood the log.
  const refusals = new RefusalLog(log);

  const metadata = () =>
    resource === undefined
      ? undefined
      : {
          resource,
          authorizationServers: options.authorizationServers,
          scopes: scopes.supported(),
          ...(options.resourceName ? { resourceName: options.resourceName } : {}),
        };

  const authenticate = async (request: Request, peer: Peer): Promise<Response | { authInfo: AuthInfo }> => {
    // Between listening and `attach` (a few microseconds with port 0) nothing can be checked.
    if (resource === undefined || registry === undefined)
      return unavailableResponse('The server is starting.');
    const metadataUrl = resourceMetadataUrl(resource);
    const refuse = (refusal: Refusal) => {
      refusals.refused(
        'authentication',
        `${request.method} from ${peer.address ?? 'an unknown address'} (${refusal.status}): ${refusal.description}`,
      );
      return challengeResponse(refusal, metadataUrl);
    };

    const header = request.headers.get('authorization');
    if (header === null || !/^bearer(\s|$)/i.test(header.trim())) {
      return refuse({
        status: 401,
        description: 'This server needs a bearer token (Authorization: Bearer <token>).',
        scopes: scopes.baseline(),
      });
    }
    const { token, malformed } = bearerToken(header);
    if (!token) return refuse({ status: 401, error: 'invalid_token', description: malformed ?? 'No token.' });

    let verified: Awaited<ReturnType<TokenVerifier['verify']>>;
    try {
      verified = await verifier.verify(token, resource);
    } catch (error) {
      // Logged like a refusal: while the keys are unreachable every request ends here.
      refusals.refused(
        'cannot check tokens',
        `${request.method} from ${peer.address ?? 'an unknown address'} (503): ${describeError(error)}`,
      );
      return unavailableResponse('The server cannot check tokens right now; try again shortly.');
    }
    if (!verified.ok) {
      return refuse({ status: 401, error: 'invalid_token', description: verified.description });
    }
    return { authInfo: { ...verified.authInfo, resourceMetadataUrl: metadataUrl } };
  };

  // Per-tool scopes need the body (which tools a request calls): checked once it is parsed.
  const authorize = async (
    request: Request,
    authInfo: AuthInfo,
    parsedBody: unknown,
  ): Promise<Response | undefined> => {
    if (registry === undefined || authInfo.resourceMetadataUrl === undefined) return undefined;
    const metadataUrl = authInfo.resourceMetadataUrl;
    const needed = new Set<string>();
    const refusedTools: string[] = [];
    for (const call of await requestedTools(request, parsedBody)) {
      const tool = registry().get(call.name);
      if (!tool) continue; // The handler answers an unknown tool; nothing runs.
      const required = new Set(
        scopes.required({ name: tool.name, annotations: tool.definition.annotations }),
      );
      // A tool that runs another by name (dynamic mode's call_operation) needs that tool's scopes too.
      const target = tool.definition.runs?.(call.args);
      if (target) for (const scope of scopes.required(target)) required.add(scope);
      if (scopes.missing([...required], authInfo.scopes).length === 0) continue;
      refusedTools.push(target ? `"${tool.name}" (running "${target.name}")` : `"${tool.name}"`);
      for (const scope of required) needed.add(scope);
    }
    if (refusedTools.length > 0) {
      const tools = refusedTools.join(', ');
      const refusal: Refusal = {
        status: 403,
        error: 'insufficient_scope',
        description: `Calling ${tools} needs the scope "${[...needed].join(' ')}".`,
        scopes: [...needed],
      };
      log.debug(`http: refused ${request.method} (403): ${refusal.description}`);
      return challengeResponse(refusal, metadataUrl);
    }
    return undefined;
  };

  return {
    authenticate,
    authorize,
    routes: (request, url) => resourceMetadataResponse(request, url, metadata),
    attach(bridge) {
      registry = () => bridge.registry();
      if (resource === undefined && bridge.url) resource = bridge.url;
      const flush = () => refusals.close();
      void bridge.closed?.then(flush, flush);
    },
  };
}
