import type { AuthInfo, JSONRPCMessage, Server, ServerContext } from '@modelcontextprotocol/server';
import type { AskSettings } from '../ask/call-asking.js';
import { trackClientRoots } from '../client-roots.js';
import { isPlainObject } from '../plain-object.js';
import {
  answerToolsCall,
  isCancellation,
  plainToolsCall,
  type ToolsCallParams,
} from './answer-tools-call.js';
import type { ServerSetup } from './create-server.js';
import { errorAnswer, type JsonAnswer } from './direct-call.js';
import { plainListRequest, toolsListAnswer } from './list-json.js';

/**
 * An answer the HTTP server streams as server-sent events without a web `Response` around it:
 * it writes the head, then hands `open` a sink that writes events until `end`.
 */
export interface EventStreamAnswer {
  status: number;
  headers: Record<string, string>;
  open(sink: EventSink): void;
}

/** Where an event stream's text goes; writing after the end, or to a client gone, does nothing. */
export interface EventSink {
  write(text: string): void;
  /** Writes `text`, when given, and ends the stream. */
  end(text?: string): void;
  /** Whether the client went away (the stream can take no more). */
  readonly gone: boolean;
}

/** The events of one session as the lane keeps them (see `SessionEventStore`). */
export interface LaneEvents {
  append(streamId: string, text: string): string;
  streamOf(eventId: string): string | undefined;
  eventsAfter(lastEventId: string): Array<[string, string]>;
}

/** What the session transport gives the lane, and asks of it. */
export interface SessionLane {
  /**
   * A POST of the session: an answer when the lane takes it, `undefined` for the SDK. `settled` is
   * called once the call has ended (answered, cancelled, or its session closed).
   */
  take(
    request: Request,
    body: unknown,
    authInfo: AuthInfo | undefined,
    settled?: () => void,
  ): EventStreamAnswer | undefined;
  /** A GET of the session: the lane resumes its own streams (`Last-Event-ID`), the SDK the rest. */
  resume(request: Request): EventStreamAnswer | JsonAnswer | undefined;
  /**
   * A message the session's server sends: `true` when it belongs to a call the lane runs (a
   * question to the client, progress, a log message), which the lane then delivered.
   */
  route(message: JSONRPCMessage, relatedRequestId: string | number | undefined): boolean;
  /** A message the client sent that the SDK is about to dispatch (a cancellation may be the lane's). */
  received(message: JSONRPCMessage): void;
  /** The session closed: calls in flight are aborted and their streams ended. */
  closed(): void;
  /** Whether a call of request `id` runs here. */
  holds(id: string | number): boolean;
}

interface LaneCall {
  id: string | number;
  streamId: string;
  controller: AbortController;
  settled: (() => void) | undefined;
  sink?: EventSink;
  /** The priming event while it waits to go out with the call's first message (see `PRIMING_MS`). */
  priming?: string;
  primingTimer?: NodeJS.Timeout;
}

// Stream ids of the lane's calls; the SDK's are UUIDs and `_GET_stream`.
const STREAM_PREFIX = 'lane:';
// As the SDK's session transport: a comment line on open streams, so that proxies keep them.
const KEEP_ALIVE_MS = 15_000;
// The priming event waits this long for the call's first message, so that a quick call leaves
// in one write (head, priming event, result) rather than two: the second write cost a tenth of
// the bridge's CPU per call. A stream that breaks in that window cannot be resumed, as one that
// breaks before its priming event arrives never could.
const PRIMING_MS = 10;

/**
 * The direct lane of one initialize-era HTTP session. A plain `tools/call` (one request, a known
 * tool that never runs as a task, `_meta` of at most a progress token, the session's protocol
 * version, an Accept of both JSON and SSE) is answered here with the same handler body as the
 * SDK's (`answerToolsCall`), written as the SDK's session transport writes it: a resumable SSE
 * stream (a priming event, then every message of the call with an event id kept in the session's
 * event store) — without a `ReadableStream`, a `Response`, and the SDK's zod parse of each message.
 *
 * The call's questions to the client, progress and log messages are sent by the session's server
 * as for any request, and routed here (`route`) onto the call's stream. A client whose stream broke
 * resumes it with `Last-Event-ID` (`resume`), mid-call too. `notifications/cancelled` aborts a call
 * taken here. `test/core/direct-session-call.test.ts` compares both paths.
 */
export function createSessionLane(
  setup: ServerSetup,
  askSettings: AskSettings,
  session: { server: Server; events: LaneEvents; sessionId: string },
): SessionLane {
  const { server, events, sessionId } = session;
  const running = new Map<string | number, LaneCall>();
  const byStream = new Map<string, LaneCall>();
  const clientRoots = trackClientRoots(server);
  const project = server.projectCallToolResult.bind(server);
  const headers = {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'mcp-session-id': sessionId,
  };
  let streams = 0;
  let keepAlive: NodeJS.Timeout | undefined;
  // The session's log level as the client set it (the SDK keeps its own copy, out of reach).
  const logLevel = { threshold: -1 };

  const emit = (call: LaneCall, message: JSONRPCMessage) => {
    const text = JSON.stringify(message);
    call.sink?.write(takePriming(call) + sseEvent(events.append(call.streamId, text), text));
  };

  const finish = (call: LaneCall, answer: JSONRPCMessage | undefined) => {
    running.delete(call.id);
    byStream.delete(call.streamId);
    if (running.size === 0) keepAlive = stopTimer(keepAlive);
    call.settled?.();
    const priming = takePriming(call);
    if (!answer) {
      call.sink?.end(priming || undefined);
      return;
    }
    const text = JSON.stringify(answer);
    // Kept even when nobody listens: a client that lost the stream resumes and finds the result.
    call.sink?.end(priming + sseEvent(events.append(call.streamId, text), text));
  };

  const run = (call: LaneCall, params: ToolsCallParams, request: Request, authInfo: AuthInfo | undefined) => {
    const ctx = sessionContext(server, { sessionId, logLevel }, call, params._meta, request, authInfo);
    const site = {
      modern: false,
      capabilities: server.getClientCapabilities() ?? {},
      roots: () => clientRoots(ctx),
      project,
      // Shutdown closes every session, which aborts the calls taken here (`closed`): the call's
      // own signal is enough, with no second one joined to the server's.
      signalFollowsShutdown: true,
    };
    answerToolsCall(params, ctx, setup, askSettings, site)
      .then(
        (result) => ({ result, jsonrpc: '2.0', id: call.id }),
        (error) => errorAnswer(call.id, error).message,
      )
      // A cancelled call gets no answer, as the SDK does it; its stream ends.
      .then((answer) => finish(call, call.controller.signal.aborted ? undefined : (answer as JSONRPCMessage)))
      .catch(() => finish(call, undefined));
  };

  // A plain `tools/list` of a client since 2025-06-18 (older ones read the title elsewhere), from
  // the entries' JSON (see list-json.ts), on a stream of its own as the SDK's transport writes it:
  // the priming event, then the answer, both kept for a client that resumes.
  const list = (request: Request, body: unknown): EventStreamAnswer | undefined => {
    const message = plainListRequest(body);
    const version = server.getNegotiatedProtocolVersion();
    if (
      !message ||
      server.getClientVersion() === undefined ||
      version === undefined ||
      version < '2025-06-18'
    )
      return undefined;
    if (
      !acceptsBoth(request.headers.get('accept')) ||
      request.headers.get('mcp-protocol-version') !== version
    )
      return undefined;
    const answer = toolsListAnswer(setup.registry(), message.id, message.cursor);
    if (!answer) return undefined;
    // The line without its newline: an event's data.
    const text = answer.toString('utf8', 0, answer.length - 1);
    return {
      status: 200,
      headers,
      open: (sink) => {
        const streamId = `${STREAM_PREFIX}${++streams}`;
        const priming = primes(version) ? primingEvent(events, streamId) : '';
        sink.end(priming + sseEvent(events.append(streamId, text), text));
      },
    };
  };

  return {
    take(request, body, authInfo, settled) {
      if (isPlainObject(body) && body.method === 'tools/list') return list(request, body);
      const message = plainToolsCall(body);
      // Before `initialize` completes, or an id still running here, the SDK answers.
      if (!message || running.has(message.id) || server.getClientVersion() === undefined) return undefined;
      for (const key in message.params._meta) if (key !== 'progressToken') return undefined;
      const version = server.getNegotiatedProtocolVersion();
      if (
        !acceptsBoth(request.headers.get('accept')) ||
        request.headers.get('mcp-protocol-version') !== version
      )
        return undefined;
      const tool = setup.registry().get(message.params.name);
      if (!tool || (tool.definition.taskSupport ?? 'forbidden') !== 'forbidden') return undefined;

      return {
        status: 200,
        headers,
        open: (sink) => {
          const call: LaneCall = {
            id: message.id,
            streamId: `${STREAM_PREFIX}${++streams}`,
            controller: new AbortController(),
            settled,
            sink,
          };
          running.set(call.id, call);
          byStream.set(call.streamId, call);
          keepAlive ??= startKeepAlive(running);
          // The priming event gives the client an id to resume from before anything else is sent.
          if (primes(version)) {
            call.priming = primingEvent(events, call.streamId);
            call.primingTimer = setTimeout(() => call.sink?.write(takePriming(call)), PRIMING_MS);
          }
          run(call, message.params, request, authInfo);
        },
      };
    },

    resume(request) {
      const lastEventId = request.headers.get('last-event-id');
      if (request.method !== 'GET' || !lastEventId) return undefined;
      const streamId = events.streamOf(lastEventId);
      if (!streamId?.startsWith(STREAM_PREFIX)) return undefined;
      const version = request.headers.get('mcp-protocol-version');
      // A refusal the SDK would answer (what the client accepts, the version) stays the SDK's.
      if (
        !request.headers.get('accept')?.includes('text/event-stream') ||
        (version !== null && version !== server.getNegotiatedProtocolVersion())
      )
        return undefined;
      if (byStream.get(streamId)?.sink?.gone === false) {
        return conflict('Conflict: Stream already has an active connection');
      }
      return {
        status: 200,
        headers,
        open: (sink) => {
          // Read now, not when the GET arrived: the call may have sent more, or ended, since.
          const missed = events.eventsAfter(lastEventId);
          const text = missed.map(([id, event]) => sseEvent(id, event)).join('');
          const call = byStream.get(streamId);
          if (!call) {
            sink.end(text);
            return;
          }
          // Another GET of the stream may have opened since this one passed the check above: the
          // stream stays with it, as a 409 would have said, rather than leave it open unwritten.
          if (call.sink?.gone === false) {
            sink.end();
            return;
          }
          call.sink = sink;
          if (text) sink.write(text);
        },
      };
    },

    route(message, relatedRequestId) {
      if (relatedRequestId === undefined || 'result' in message || 'error' in message) return false;
      const call = running.get(relatedRequestId);
      if (!call) return false;
      emit(call, message);
      return true;
    },

    received(message) {
      if (isCancellation(message))
        running.get(message.params.requestId)?.controller.abort(message.params.reason);
      const level = loggingLevelSet(message);
      if (level !== undefined) logLevel.threshold = level;
    },

    holds: (id) => running.has(id),
    closed() {
      keepAlive = stopTimer(keepAlive);
      for (const call of running.values()) {
        clearTimeout(call.primingTimer);
        call.settled?.();
        call.controller.abort(new Error('The session closed.'));
        call.sink?.end();
      }
      running.clear();
      byStream.clear();
    },
  };
}

/**
 * The request context the call path reads (see `answerToolsCall`), as the SDK builds it for an
 * initialize-era session request: the session, the call's own signal, notifications and requests
 * to the client related to the call (so they travel on its stream), log messages at or above the
 * level the session set, the HTTP request and its caller.
 */
function sessionContext(
  server: Server,
  { sessionId, logLevel }: { sessionId: string; logLevel: { threshold: number } },
  call: LaneCall,
  meta: Record<string, unknown> | undefined,
  request: Request,
  authInfo: AuthInfo | undefined,
): ServerContext {
  const related = { relatedRequestId: call.id };
  const notify = (notification: Parameters<Server['notification']>[0]) =>
    server.notification(notification, related);
  const context = {
    sessionId,
    mcpReq: {
      id: call.id,
      method: 'tools/call',
      _meta: meta,
      requestState: () => undefined,
      signal: call.controller.signal,
      notify,
      log: (level: string, data: unknown, logger?: string) =>
        LOG_LEVELS.indexOf(level) < logLevel.threshold
          ? Promise.resolve()
          : notify({ method: 'notifications/message', params: { level, data, logger } } as never),
      send: (message: Parameters<Server['request']>[0], options?: Record<string, unknown>) =>
        server.request(message, { ...options, ...related } as never),
    },
    http: { ...(authInfo ? { authInfo } : {}), req: request },
  };
  return context as unknown as ServerContext;
}

// MCP's log levels, least severe first (RFC 5424's, in reverse).
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The severity a `logging/setLevel` request sets, as an index into `LOG_LEVELS`. */
function loggingLevelSet(message: unknown): number | undefined {
  if (!isPlainObject(message) || message.method !== 'logging/setLevel' || !isPlainObject(message.params))
    return undefined;
  const index = LOG_LEVELS.indexOf(message.params.level as string);
  return index === -1 ? undefined : index;
}

/** The call's priming event if it has not gone out yet (then it goes with what is written now). */
function takePriming(call: LaneCall): string {
  const { priming } = call;
  if (priming === undefined) return '';
  clearTimeout(call.primingTimer);
  call.priming = undefined;
  return priming;
}

// The SDK sends a priming event to clients of 2025-11-25 and later, whose parsers take empty data.
const primes = (version: string | undefined) => version !== undefined && version >= '2025-11-25';

/** A stream's priming event, kept (as the SDK keeps it) so that a resume can start after it. */
function primingEvent(events: LaneEvents, streamId: string): string {
  return `id: ${events.append(streamId, '{}')}\ndata: \n\n`;
}

function sseEvent(id: string, text: string): string {
  return `event: message\nid: ${id}\ndata: ${text}\n\n`;
}

function acceptsBoth(accept: string | null): boolean {
  return accept?.includes('application/json') === true && accept.includes('text/event-stream');
}

function conflict(message: string): JsonAnswer {
  return { status: 409, message: { jsonrpc: '2.0', error: { code: -32000, message }, id: null } };
}

// One timer per session while calls run, rather than one per stream.
function startKeepAlive(running: Map<string | number, LaneCall>): NodeJS.Timeout {
  const timer = setInterval(() => {
    for (const call of running.values()) if (call.sink?.gone === false) call.sink.write(': keepalive\n\n');
  }, KEEP_ALIVE_MS);
  timer.unref();
  return timer;
}

function stopTimer(timer: NodeJS.Timeout | undefined): undefined {
  clearInterval(timer);
  return undefined;
}
