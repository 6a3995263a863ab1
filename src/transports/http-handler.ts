import {
  createMcpHandler,
  hostHeaderValidationResponse,
  InMemoryServerEventBus,
  isJsonContentType,
  isLegacyRequest,
  type McpServerFactory,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import { callerOfAuth } from '../server/call-context.js';
import { asTaskListen, serveTaskListen, type TaskFeed } from '../tasks/task-listen.js';
import { rejectParamHeaders } from './check-param-headers.js';
import { jsonRpcErrorResponse } from './json-rpc-response.js';
import { LegacySessions } from './legacy-sessions.js';

export interface HttpHandlerOptions {
  /** Path of the MCP endpoint. Default `/mcp`. */
  path?: string;
  /** Host names the `Host` header may carry (DNS-rebinding protection); `undefined` turns the check off. */
  allowedHosts?: string[];
  /** Origin host names a browser may call from; `undefined` turns the check off. */
  allowedOrigins?: string[];
  /** Largest request body accepted, in bytes. Default 4 MiB. */
  maxRequestBodySize?: number;
  log: Logger;
  /**
   * Runs before MCP handling, e.g. to authenticate: return a `Response` to answer the request
   * yourself, or auth information to pass to the tool handlers. `parsedBody` is the POST's JSON
   * body when the Node wrapper already parsed it (read it from there, not from the request).
   */
  authenticate?: (
    request: Request,
    parsedBody?: unknown,
  ) => Promise<Response | { authInfo?: import('@modelcontextprotocol/server').AuthInfo }>;
  /**
   * The input schema of a tool by name, for checking SEP-2243 `Mcp-Param-*` headers of
   * 2026-07-28 calls against the tool's `x-mcp-header` declarations. Without it, no check.
   */
  toolInputSchema?: (toolName: string) => Record<string, unknown> | undefined;
  /** Extra routes served beside the endpoint (e.g. `/.well-known/…`): a response, or `undefined` to pass. */
  routes?: (request: Request, url: URL) => Response | undefined | Promise<Response | undefined>;
  /** Task changes: `subscriptions/listen` with `taskIds` (2026-07-28) streams `notifications/tasks`. */
  taskFeed?: TaskFeed;
  /** Whether the server offers resource subscriptions (a listen stream honors them only then). */
  resourceSubscriptions?: boolean;
  /** This instance's name behind a load balancer: session ids start with `NAME.`. */
  instance?: string;
}

/** A web-standard HTTP face: `fetch` answers one request; `close` ends sessions and in-flight calls. */
export interface HttpHandler {
  /** Answers `request`; `options.parsedBody` is its JSON body when the caller already parsed it. */
  fetch(request: Request, options?: { parsedBody?: unknown }): Promise<Response>;
  close(): Promise<void>;
  /** Tells every connected client that the tool list changed. */
  notifyToolsChanged(): void;
  /**
   * Tells 2026-07-28 `subscriptions/listen` streams subscribed to `uri` that it changed
   * (initialize-era sessions are told by their server instance, see `ResourceSubscriptions`).
   */
  notifyResourceUpdated(uri: string): void;
}

/**
 * Serves MCP over Streamable HTTP for both protocol eras on one endpoint: requests carrying the
 * 2026-07-28 `_meta` envelope go to the SDK's stateless per-request handler; everything else is
 * served by initialize-era sessions.
 */
export function createHttpHandler(factory: McpServerFactory, options: HttpHandlerOptions): HttpHandler {
  const path = options.path ?? '/mcp';
  const maxRequestBodySize = options.maxRequestBodySize ?? 4 * 1024 * 1024;
  // Our own bus, so that listen streams with task notifications (served here) hear list changes too.
  const bus = new InMemoryServerEventBus();
  const modern = createMcpHandler(factory, {
    bus,
    legacy: 'reject',
    maxRequestBodySize,
    onerror: (error) => options.log.debug(`http: ${error.message}`),
  });
  const legacy = new LegacySessions(factory, {
    maxRequestBodySize,
    ...(options.instance ? { sessionIdPrefix: `${options.instance}.` } : {}),
  });

  const fetch = async (request: Request, fetchOptions?: { parsedBody?: unknown }): Promise<Response> => {
    const given = fetchOptions?.parsedBody;
    const url = new URL(request.url);
    const rejected =
      (options.allowedHosts && hostHeaderValidationResponse(request, options.allowedHosts)) ||
      (options.allowedOrigins && originValidationResponse(request, options.allowedOrigins));
    if (rejected) return rejected;
    const routed = await options.routes?.(request, url);
    if (routed) return routed;
    if (url.pathname !== path)
      return jsonRpcErrorResponse(404, -32000, `Not found: the MCP endpoint is ${path}`);

    let authInfo: import('@modelcontextprotocol/server').AuthInfo | undefined;
    if (options.authenticate) {
      const outcome = await options.authenticate(request, given);
      if (outcome instanceof Response) return outcome;
      authInfo = outcome.authInfo;
    }

    if (request.method === 'POST' && !isJsonContentType(request.headers.get('content-type'))) {
      return jsonRpcErrorResponse(
        415,
        -32000,
        'Unsupported Media Type: Content-Type must be application/json',
      );
    }
    const declared = Number(request.headers.get('content-length') ?? 0);
    if (declared > maxRequestBodySize) {
      return jsonRpcErrorResponse(413, -32000, `Payload Too Large: the limit is ${maxRequestBodySize} bytes`);
    }
    if (await isLegacyRequest(request, given, { maxRequestBodySize })) {
      const body = given !== undefined || request.method !== 'POST' ? given : await readJson(request);
      if (body instanceof Response) return body;
      return legacy.handle(request, body, authInfo);
    }
    if (options.toolInputSchema) {
      const mismatch = await rejectParamHeaders(request, options.toolInputSchema, given);
      if (mismatch) return mismatch;
    }
    // The SDK's listen router knows no `taskIds`: such streams are served here; header or other
    // problems are left to the SDK, which answers them as for any request.
    const listen =
      options.taskFeed && request.headers.get('mcp-method') === 'subscriptions/listen'
        ? asTaskListen(
            given ??
              (await request
                .clone()
                .json()
                .catch(() => undefined)),
          )
        : undefined;
    if (listen && options.taskFeed) {
      return serveTaskListen(listen, {
        feed: options.taskFeed,
        bus,
        caller: callerOfAuth(authInfo),
        resourceSubscriptions: options.resourceSubscriptions ?? false,
        signal: request.signal,
      });
    }
    return modern.fetch(request, {
      ...(authInfo ? { authInfo } : {}),
      ...(given === undefined ? {} : { parsedBody: given }),
    });
  };

  return {
    fetch,
    async close() {
      await Promise.allSettled([legacy.closeAll(), modern.close()]);
    },
    notifyResourceUpdated(uri) {
      modern.notify.resourceUpdated(uri);
    },
    notifyToolsChanged() {
      modern.notify.toolsChanged();
      legacy.notifyToolsChanged();
    },
  };
}

async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  try {
    return JSON.parse(text);
  } catch (error) {
    return jsonRpcErrorResponse(400, -32700, `Parse error: ${(error as Error).message}`);
  }
}
