import { randomUUID } from 'node:crypto';
import {
  type McpServerFactory,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { ANONYMOUS_CALLER, callerOfAuth } from '../caller.js';
import type { Logger } from '../logger.js';
import { quote } from '../quote-input.js';
import { isCancellation } from '../server/answer-tools-call.js';
import { onCallSettled } from '../server/call-settled.js';
import type { JsonAnswer } from '../server/direct-call.js';
import type { EventStreamAnswer, LaneEvents, SessionLane } from '../server/direct-session-call.js';
import { requestsIn } from './call-limits.js';
import type { Admission } from './http-handler.js';
import { jsonRpcErrorResponse } from './json-rpc-response.js';
import { SessionCalls } from './session-calls.js';
import { EventBudget, SessionEventStore } from './session-event-store.js';

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** Who opened it (`auth:<subject>`, or anonymous: then the id alone is the key). */
  owner: string;
  /** Whose session quota it counts against (the caller, or the peer address when anonymous). */
  quotaKey: string;
  lastSeen: number;
  /** Calls the SDK's transport is running, holding their caller's call slots until answered. */
  calls: SessionCalls;
  /** Answers the session's plain calls without the SDK's transport (see `createSessionLane`). */
  lane?: SessionLane;
}

/** Makes the direct lane of a session once it has its id. */
export type SessionLaneFactory = (session: {
  server: Server;
  events: LaneEvents;
  sessionId: string;
}) => SessionLane;

export interface LegacySessionOptions {
  /** Sessions idle longer than this are closed. Default 30 minutes. */
  idleMs?: number;
  /** At most this many sessions at once, all callers together. Default 1,000. */
  maxSessions?: number;
  /** At most this many sessions per caller; a caller's next `initialize` closes its own oldest. Default 100. */
  maxPerCaller?: number;
  maxRequestBodySize: number;
  log?: Logger;
  /**
   * Starts every session id (`NAME.` + a UUID), so that a load balancer can send a session back to
   * the instance that holds it (see the README's "Deploying"). Default none.
   */
  sessionIdPrefix?: string;
  /** A direct lane for each session's plain calls; without it, the SDK's transport answers everything. */
  lane?: SessionLaneFactory;
  /**
   * Called once for each session that ends while serving: DELETE, eviction for room, idleness, a
   * broken transport. Not at `closeAll` (shutdown), which stops everything in its own way.
   */
  onClosed?: (sessionId: string) => void;
}

const NOT_FOUND = 'Session not found: start a new session with initialize.';

/**
 * Initialize-era (2024-11-05 … 2025-11-25) Streamable HTTP with sessions: `initialize` opens one,
 * `Mcp-Session-Id` routes to it, an unknown id is 404 so the client starts over, DELETE ends it.
 *
 * A session belongs to the caller that opened it (bound at `initialize`, MCP security best
 * practices): another authenticated caller presenting its id gets the same 404 as for an unknown id.
 * Limits are per caller first: past `maxPerCaller` a caller's new session replaces its own least
 * recently used one, and past `maxSessions` the least recently used session of whoever holds the
 * most goes. So one caller opening sessions in a loop only ever closes its own.
 */
export class LegacySessions {
  readonly #sessions = new Map<string, Session>();
  readonly #factory: McpServerFactory;
  readonly #options: Required<Omit<LegacySessionOptions, 'log' | 'lane' | 'onClosed'>>;
  readonly #log: Logger | undefined;
  readonly #lane: SessionLaneFactory | undefined;
  readonly #onClosed: ((sessionId: string) => void) | undefined;
  #closingAll = false;
  // What the sessions' event stores keep, all together.
  readonly #events = new EventBudget();
  readonly #sweeper: NodeJS.Timeout;

  constructor(factory: McpServerFactory, options: LegacySessionOptions) {
    this.#factory = factory;
    const { log, lane, onClosed, ...rest } = options;
    this.#log = log;
    this.#lane = lane;
    this.#onClosed = onClosed;
    this.#options = {
      idleMs: 30 * 60_000,
      maxSessions: 1_000,
      maxPerCaller: 100,
      sessionIdPrefix: '',
      ...rest,
    };
    this.#sweeper = setInterval(() => this.#closeIdle(), Math.min(this.#options.idleMs, 60_000));
    this.#sweeper.unref();
  }

  /**
   * Answers a request of the initialize era. `holdCalls`, when given, takes over the release of
   * the caller's call slots of this request (by default released when its connection closes):
   * a session's calls run on after the client goes away, so their slots are held until answered.
   */
  async handle(
    request: Request,
    parsedBody: unknown,
    admission: Admission,
    holdCalls?: () => () => void,
  ): Promise<Response | JsonAnswer | EventStreamAnswer> {
    const { authInfo } = admission;
    const options = authInfo ? { parsedBody, authInfo } : { parsedBody };
    const owner = authInfo ? callerOfAuth(authInfo) : ANONYMOUS_CALLER;
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.#sessions.get(sessionId);
      // Another caller's session looks exactly like no session: its id reveals nothing.
      if (!session || session.owner !== owner) return jsonRpcErrorResponse(404, -32001, NOT_FOUND);
      session.lastSeen = Date.now();
      // Re-insert so that the map stays in least-recently-used order.
      this.#sessions.delete(sessionId);
      this.#sessions.set(sessionId, session);
      // Request ids are unique within a session (MCP): an answer to a reused one would settle the
      // call that holds it, and give back its slot, while the tool runs on (a ping after each call
      // ran any number of calls past --max-calls-per-caller).
      const reused = reusedId(
        parsedBody,
        (id) => session.calls.holds(id) || session.lane?.holds(id) === true,
      );
      if (reused !== undefined) {
        return jsonRpcErrorResponse(
          400,
          -32600,
          `Invalid Request: the request id ${quote(String(reused))} is in use in this session (a call holds it until it is answered); send each request with an id of its own.`,
        );
      }
      const calls = holdCalls ? callIds(parsedBody) : [];
      const release = calls.length > 0 ? holdCalls?.() : undefined;
      const { lane } = session;
      const direct =
        lane &&
        (request.method === 'POST'
          ? lane.take(request, parsedBody, authInfo, release)
          : lane.resume(request));
      if (direct) return direct;
      if (!release) return session.transport.handleRequest(request, options);
      const refused = session.calls.track(calls, release);
      const response = await session.transport.handleRequest(request, options);
      // Only a stream carries answers; a refusal (or a 202) answers none of them.
      if (!response.headers.get('content-type')?.startsWith('text/event-stream')) refused();
      return response;
    }
    if (request.method !== 'POST') {
      // Without a session there is no stream to open or end: the 2026-07-28 answer, 405, fits both eras.
      return jsonRpcErrorResponse(405, -32000, 'Method Not Allowed: send JSON-RPC with POST.', {
        allow: 'POST',
      });
    }
    if (!isInitialize(parsedBody)) {
      return jsonRpcErrorResponse(
        400,
        -32000,
        'Bad Request: Mcp-Session-Id header is required (send initialize first, or use the 2026-07-28 _meta envelope).',
      );
    }
    await this.#makeRoom(admission.quotaKey);
    return this.#open(request, options, { owner, quotaKey: admission.quotaKey });
  }

  /** Sends `notifications/tools/list_changed` on every open session. */
  notifyToolsChanged(): void {
    for (const session of this.#sessions.values()) void session.server.sendToolListChanged().catch(() => {});
  }

  async closeAll(): Promise<void> {
    this.#closingAll = true;
    clearInterval(this.#sweeper);
    await Promise.allSettled([...this.#sessions.keys()].map((id) => this.#close(id)));
  }

  /** How many sessions are open (for tests and diagnostics). */
  get size(): number {
    return this.#sessions.size;
  }

  // The map is in least-recently-used order, so the first match is the idlest session.
  async #makeRoom(quotaKey: string): Promise<void> {
    const own = [...this.#sessions].filter(([, session]) => session.quotaKey === quotaKey);
    if (own.length >= this.#options.maxPerCaller) {
      const [oldest] = own[0] as [string, Session];
      this.#log?.debug(`http: closing the idlest session of ${quotaKey}: it reached ${own.length} sessions`);
      await this.#close(oldest);
    }
    while (this.#sessions.size >= this.#options.maxSessions) {
      const victim = this.#idlestOfLargestHolder(quotaKey);
      if (victim === undefined) break;
      await this.#close(victim);
    }
  }

  // Fair share: the caller holding the most sessions gives one up (ties: the newcomer's own first).
  #idlestOfLargestHolder(newcomer: string): string | undefined {
    const counts = new Map<string, number>();
    for (const session of this.#sessions.values()) {
      counts.set(session.quotaKey, (counts.get(session.quotaKey) ?? 0) + 1);
    }
    let largest = newcomer;
    for (const [key, count] of counts) {
      if (count > (counts.get(largest) ?? 0)) largest = key;
    }
    for (const [id, session] of this.#sessions) if (session.quotaKey === largest) return id;
    return this.#sessions.keys().next().value;
  }

  async #open(
    request: Request,
    options: { parsedBody: unknown; authInfo?: import('@modelcontextprotocol/server').AuthInfo },
    binding: { owner: string; quotaKey: string },
  ): Promise<Response> {
    const server = (await this.#factory({ era: 'legacy', requestInfo: request })) as Server;
    // Resumability: a client whose stream broke reconnects with Last-Event-ID and misses nothing.
    // Its events count against its caller's share of the server's budget (see `EventBudget`).
    const events = new SessionEventStore({ budget: this.#events, owner: binding.quotaKey });
    const calls = new SessionCalls();
    let lane: SessionLane | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => this.#options.sessionIdPrefix + randomUUID(),
      maxRequestBodySize: this.#options.maxRequestBodySize,
      eventStore: events,
      onsessioninitialized: (id) => {
        lane = this.#lane?.({ server, events, sessionId: id });
        watchTransport(transport, server, calls, lane);
        // The owner is bound here, from the request that opened the session, never later.
        this.#sessions.set(id, {
          transport,
          server,
          ...binding,
          lastSeen: Date.now(),
          calls,
          ...(lane ? { lane } : {}),
        });
      },
      onsessionclosed: (id) => {
        this.#sessions.delete(id);
      },
    });
    transport.onclose = () => {
      lane?.closed();
      calls.forget();
      events.clear();
      const id = transport.sessionId;
      if (id === undefined) return;
      this.#sessions.delete(id);
      if (!this.#closingAll) this.#onClosed?.(id);
    };
    await server.connect(transport);
    return transport.handleRequest(request, options);
  }

  async #close(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    this.#sessions.delete(id);
    await session?.server.close().catch(() => {});
  }

  #closeIdle(): void {
    const cutoff = Date.now() - this.#options.idleMs;
    for (const [id, session] of this.#sessions) {
      if (session.lastSeen < cutoff) void this.#close(id);
    }
  }
}

/**
 * Stands between the session's server and its transport: an answer the server sends settles its
 * call, and a cancellation from the client settles the call it names (no answer comes then). With
 * a lane, what the server sends for a call the lane runs goes onto the lane's stream, and the lane
 * hears what the client sends.
 */
function watchTransport(
  transport: WebStandardStreamableHTTPServerTransport,
  server: Server,
  calls: SessionCalls,
  lane: SessionLane | undefined,
): void {
  // Cancelled calls whose handler is still running: their slots are given back when it ends.
  const cancelled = new Set<string | number>();
  onCallSettled(server, (id) => {
    if (cancelled.delete(id)) calls.answered(id);
  });
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (lane?.route(message, options?.relatedRequestId)) return Promise.resolve();
    const { id } = message as { id?: unknown };
    if ((typeof id === 'string' || typeof id === 'number') && ('result' in message || 'error' in message))
      calls.answered(id);
    return send(message, options);
  };
  const dispatch = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isCancellation(message) && calls.holds(message.params.requestId))
      cancelled.add(message.params.requestId);
    lane?.received(message);
    dispatch?.(message, extra);
  };
}

/** A request id of `body` that a call still holds, or that the body itself gives twice. */
function reusedId(body: unknown, held: (id: string | number) => boolean): string | number | undefined {
  const seen = new Set<string | number>();
  for (const { id } of requestsIn(body)) {
    if (held(id) || seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}

/** The ids of the `tools/call` requests in a body. */
function callIds(body: unknown): Array<string | number> {
  return requestsIn(body)
    .filter((request) => request.method === 'tools/call')
    .map((request) => request.id);
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (message) =>
      typeof message === 'object' &&
      message !== null &&
      (message as { method?: unknown }).method === 'initialize',
  );
}
