import { randomUUID } from 'node:crypto';
import {
  type AuthInfo,
  type McpServerFactory,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { jsonRpcErrorResponse } from './json-rpc-response.js';
import { SessionEventStore } from './session-event-store.js';

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
}

export interface LegacySessionOptions {
  /** Sessions idle longer than this are closed. Default 30 minutes. */
  idleMs?: number;
  /** At most this many sessions at once; the least recently used is closed first. Default 1,000. */
  maxSessions?: number;
  maxRequestBodySize: number;
  /**
   * Starts every session id (`NAME.` + a UUID), so that a load balancer can send a session back to
   * the instance that holds it (see the README's "Deploying"). Default none.
   */
  sessionIdPrefix?: string;
}

/**
 * Initialize-era (2024-11-05 … 2025-11-25) Streamable HTTP with sessions: `initialize` opens one,
 * `Mcp-Session-Id` routes to it, an unknown id is 404 so the client starts over, DELETE ends it.
 */
export class LegacySessions {
  readonly #sessions = new Map<string, Session>();
  readonly #factory: McpServerFactory;
  readonly #options: Required<LegacySessionOptions>;
  readonly #sweeper: NodeJS.Timeout;

  constructor(factory: McpServerFactory, options: LegacySessionOptions) {
    this.#factory = factory;
    this.#options = { idleMs: 30 * 60_000, maxSessions: 1_000, sessionIdPrefix: '', ...options };
    this.#sweeper = setInterval(() => this.#closeIdle(), Math.min(this.#options.idleMs, 60_000));
    this.#sweeper.unref();
  }

  async handle(request: Request, parsedBody: unknown, authInfo?: AuthInfo): Promise<Response> {
    const options = authInfo ? { parsedBody, authInfo } : { parsedBody };
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.#sessions.get(sessionId);
      if (!session)
        return jsonRpcErrorResponse(404, -32001, 'Session not found: start a new session with initialize.');
      session.lastSeen = Date.now();
      // Re-insert so that the map stays in least-recently-used order.
      this.#sessions.delete(sessionId);
      this.#sessions.set(sessionId, session);
      return session.transport.handleRequest(request, options);
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
    return this.#open(request, options);
  }

  /** Sends `notifications/tools/list_changed` on every open session. */
  notifyToolsChanged(): void {
    for (const session of this.#sessions.values()) void session.server.sendToolListChanged().catch(() => {});
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.allSettled([...this.#sessions.keys()].map((id) => this.#close(id)));
  }

  async #open(request: Request, options: { parsedBody: unknown; authInfo?: AuthInfo }): Promise<Response> {
    while (this.#sessions.size >= this.#options.maxSessions) {
      const oldest = this.#sessions.keys().next().value as string;
      await this.#close(oldest);
    }
    const server = (await this.#factory({ era: 'legacy', requestInfo: request })) as Server;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => this.#options.sessionIdPrefix + randomUUID(),
      maxRequestBodySize: this.#options.maxRequestBodySize,
      // Resumability: a client whose stream broke reconnects with Last-Event-ID and misses nothing.
      eventStore: new SessionEventStore(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { transport, server, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => {
        this.#sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
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

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (message) =>
      typeof message === 'object' &&
      message !== null &&
      (message as { method?: unknown }).method === 'initialize',
  );
}
