import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  InMemoryServerEventBus,
  isJsonContentType,
  isLegacyRequest,
  type McpServerFactory,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { bindCallSlot, shareCallSlot } from '../call-slot.js';
import { bindQuotaKey, callerOfAuth } from '../caller.js';
import type { Logger } from '../logger.js';
import { isPlainObject } from '../plain-object.js';
import { clipErrorResponse } from '../server/clip-error-answer.js';
import type { DirectCall, JsonAnswer } from '../server/direct-call.js';
import type { EventStreamAnswer } from '../server/direct-session-call.js';
import { asTaskListen, serveTaskListen, type TaskFeed } from '../tasks/task-listen.js';
import { requestsIn } from './call-limits.js';
import { rejectParamHeaders } from './check-param-headers.js';
import { jsonRpcErrorResponse } from './json-rpc-response.js';
import { LegacySessions, type SessionLaneFactory } from './legacy-sessions.js';
import { logSdkErrors } from './log-sdk-errors.js';
import { type Peer, peerQuotaKey } from './peer-quota-key.js';
import type { EraDelivery } from './transport.js';

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
   * Authenticates a request from its headers alone, before any of its body is read: return a
   * `Response` to refuse it, or the caller's auth information (none: anonymous).
   */
  authenticate?: (request: Request, peer: Peer) => Promise<Response | { authInfo?: AuthInfo }>;
  /**
   * Checks an authenticated request once its body is parsed (e.g. the scopes of the tools it
   * calls): a `Response` refuses it.
   */
  authorize?: (request: Request, authInfo: AuthInfo, parsedBody: unknown) => Promise<Response | undefined>;
  /** Initialize-era sessions one caller may hold at once. Default 100. */
  maxSessionsPerCaller?: number;
  /** Initialize-era sessions in all. Default 1,000. */
  maxSessions?: number;
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
  /** Answers plain 2026-07-28 `tools/call` requests without the SDK's per-request server. */
  direct?: Pick<DirectCall, 'answer'>;
  /** Answers plain initialize-era session calls without the SDK's session transport. */
  sessionLane?: SessionLaneFactory;
  /** Hears each initialize-era session that ends while serving (see `LegacySessionOptions.onClosed`). */
  sessionClosed?: (sessionId: string) => void;
}

/**
 * What the header checks of a request established: who it is (`authInfo`, none when anonymous)
 * and whose quotas it counts against (`quotaKey`: the caller, or when anonymous the peer address,
 * see `peerQuotaKey`).
 */
export interface Admission {
  authInfo?: AuthInfo;
  quotaKey: string;
}

/** A web-standard HTTP face: `fetch` answers one request; `close` ends sessions and in-flight calls. */
export interface HttpHandler {
  /**
   * The checks that need only the request line and headers (Host, Origin, path, media type,
   * declared length, authentication): a `Response` refuses the request before its body is read.
   */
  admit(request: Request, peer: Peer): Promise<Response | Admission>;
  /**
   * Answers an admitted `request`: `admission` is what `admit` returned for it, `parsedBody` its
   * JSON body (the server read and parsed it once, within its limits; the request carries none),
   * `signal` aborts when the client goes away (how a 2026-07-28 call is cancelled over HTTP); the
   * request's own signal never aborts.
   */
  fetch(
    request: Request,
    options: {
      admission: Admission;
      parsedBody?: unknown;
      signal?: AbortSignal;
      /** Takes over releasing the request's call slots (see `LegacySessions.handle`). */
      holdCalls?: () => () => void;
    },
  ): Promise<Response | JsonAnswer | EventStreamAnswer>;
  close(): Promise<void>;
  /**
   * How each era's clients on this endpoint hear of changes: initialize-era sessions of tool list
   * changes, 2026-07-28 `subscriptions/listen` streams of both kinds. Initialize-era resource
   * updates go through the sessions' server instances instead (see `ResourceSubscriptions`).
   */
  notify: { legacy: Pick<EraDelivery, 'toolsChanged'>; modern: EraDelivery };
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
    onerror: logSdkErrors(options.log, 'http'),
  });
  const legacy = new LegacySessions(factory, {
    maxRequestBodySize,
    ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
    ...(options.maxSessionsPerCaller === undefined ? {} : { maxPerCaller: options.maxSessionsPerCaller }),
    log: options.log,
    ...(options.instance ? { sessionIdPrefix: `${options.instance}.` } : {}),
    ...(options.sessionLane ? { lane: options.sessionLane } : {}),
    ...(options.sessionClosed ? { onClosed: options.sessionClosed } : {}),
  });

  const admit = async (request: Request, peer: Peer): Promise<Response | Admission> => {
    const url = new URL(request.url);
    const rejected =
      (options.allowedHosts && hostHeaderValidationResponse(request, options.allowedHosts)) ||
      (options.allowedOrigins && originValidationResponse(request, options.allowedOrigins));
    if (rejected) return rejected;
    const routed = await options.routes?.(request, url);
    if (routed) return routed;
    if (url.pathname !== path)
      return jsonRpcErrorResponse(404, -32000, `Not found: the MCP endpoint is ${path}`);

    let authInfo: AuthInfo | undefined;
    if (options.authenticate) {
      const outcome = await options.authenticate(request, peer);
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
    return {
      ...(authInfo ? { authInfo } : {}),
      quotaKey: authInfo ? callerOfAuth(authInfo) : peerQuotaKey(peer.address),
    };
  };

  const fetch = async (
    request: Request,
    fetchOptions: Parameters<HttpHandler['fetch']>[1],
  ): Promise<Response | JsonAnswer | EventStreamAnswer> => {
    const { admission, parsedBody: given } = fetchOptions;
    const signal = fetchOptions.signal ?? new AbortController().signal;
    // What the request's tools create counts against this key, whichever path serves it.
    bindQuotaKey(request, admission.quotaKey);
    // The SDK's per-request 2026-07-28 path learns of a client gone away from its request's signal.
    const signalled = () => {
      const copy = new Request(request, { signal });
      bindQuotaKey(copy, admission.quotaKey);
      return copy;
    };
    const { authInfo } = admission;
    if (given === undefined && request.method === 'POST') {
      return jsonRpcErrorResponse(400, -32700, 'Parse error: the request body is empty');
    }
    if (authInfo && options.authorize) {
      const refused = await options.authorize(request, authInfo, given);
      if (refused) return refused;
    }
    // A session id without the 2026-07-28 envelope can only be the initialize era's: the SDK's
    // classification would read the body again to say so.
    if (
      !claimsModernEra(request, given) &&
      (request.headers.has('mcp-session-id') ||
        (await isLegacyRequest(request, given, { maxRequestBodySize })))
    ) {
      // The SDK's session transport reads no request signal: the request goes as it is.
      return legacy.handle(request, given, admission, fetchOptions.holdCalls);
    }
    if (options.toolInputSchema) {
      const mismatch = await rejectParamHeaders(request, options.toolInputSchema, given);
      if (mismatch) return mismatch;
    }
    // The SDK's listen router knows no `taskIds`: such streams are served here; header or other
    // problems are left to the SDK, which answers them as for any request.
    const listen =
      options.taskFeed && request.headers.get('mcp-method') === 'subscriptions/listen'
        ? asTaskListen(given)
        : undefined;
    if (listen && options.taskFeed) {
      return serveTaskListen(listen, {
        feed: options.taskFeed,
        bus,
        caller: callerOfAuth(authInfo),
        resourceSubscriptions: options.resourceSubscriptions ?? false,
        signal,
      });
    }
    // A call's slot among the caller's calls in flight is given back when its tool has ended, not
    // when its client hangs up (which cancels it: a tool that ignores the abort runs on).
    const release = requestsIn(given).some((one) => one.method === 'tools/call')
      ? fetchOptions.holdCalls?.()
      : undefined;
    const freeUnstarted = release ? bindCallSlot(request, release) : undefined;
    try {
      const direct = options.direct?.answer({
        body: given,
        request,
        signal,
        ...(authInfo ? { authInfo } : {}),
      });
      if (direct) return await direct;
      const copy = signalled();
      shareCallSlot(request, copy);
      // Some of the SDK's refusals quote the request whole: bounded on the way out.
      return clipErrorResponse(
        await modern.fetch(copy, {
          ...(authInfo ? { authInfo } : {}),
          ...(given === undefined ? {} : { parsedBody: given }),
        }),
      );
    } finally {
      freeUnstarted?.();
    }
  };

  return {
    admit,
    fetch,
    async close() {
      await Promise.allSettled([legacy.closeAll(), modern.close()]);
    },
    notify: {
      legacy: { toolsChanged: () => legacy.notifyToolsChanged() },
      modern: {
        toolsChanged: () => modern.notify.toolsChanged(),
        resourceUpdated: (uri) => modern.notify.resourceUpdated(uri),
      },
    },
  };
}

/**
 * Whether `body` is a single JSON-RPC request or notification (not `initialize`) whose params carry
 * the 2026-07-28 envelope claim (`_meta["io.modelcontextprotocol/protocolVersion"]`). The SDK's
 * `isLegacyRequest` answers `false` for every such message (its modern path owns even their
 * rejections), so the common case skips a classification the SDK's handler repeats anyway.
 */
function claimsModernEra(request: Request, body: unknown): boolean {
  if (request.method !== 'POST' || !isPlainObject(body)) return false;
  if (typeof body.method !== 'string' || body.method === 'initialize' || 'result' in body || 'error' in body)
    return false;
  const meta = isPlainObject(body.params) ? body.params._meta : undefined;
  return isPlainObject(meta) && 'io.modelcontextprotocol/protocolVersion' in meta;
}
