import type { McpRequestContext, Server } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import type { DirectCall } from '../server/direct-call.js';
import type { StdioLane, StdioOutput } from '../server/direct-stdio-call.js';
import type { TaskFeed } from '../tasks/task-listen.js';
import type { HttpHandlerOptions } from './http-handler.js';
import type { SessionLaneFactory } from './legacy-sessions.js';
import type { ListenAddress } from './listen-address.js';
import type { HttpLimits } from './serve-http.js';

/** How the server is reached. Each kind has one entry in `serve.ts`'s table of transports. */
export type TransportOptions = StdioTransportOptions | HttpTransportOptions;

export interface StdioTransportOptions {
  kind: 'stdio';
}

export interface HttpTransportOptions {
  kind: 'http';
  address: ListenAddress;
  /** Extra host names accepted in `Host` (besides localhost when bound to loopback). */
  allowedHosts?: string[];
  /** Origins (host names) browsers may call from. */
  allowedOrigins?: string[];
  maxRequestBodySize?: number;
  /** Header and body deadlines, connection and per-caller call caps (see `HttpLimits`). */
  limits?: Omit<HttpLimits, 'maxRequestBodySize'>;
  /** Initialize-era sessions one caller may hold at once. Default 100. */
  maxSessionsPerCaller?: number;
  authenticate?: HttpHandlerOptions['authenticate'];
  authorize?: HttpHandlerOptions['authorize'];
  routes?: HttpHandlerOptions['routes'];
  /**
   * The peers that are reverse proxies the server trusts (`--trusted-proxy`). Each of their
   * connections carries the requests of many callers, who are counted by identity: their
   * connections are not capped per address (`maxConnectionsPerAddress`), only in total.
   */
  proxies?: (address: string | undefined) => boolean;
  /**
   * This instance's name among several behind a load balancer: initialize-era session ids
   * start with `NAME.`, so the balancer can route each session back to its instance.
   */
  instance?: string;
}

/** The protocol eras a transport serves: initialize (2024-11-05 … 2025-11-25) and 2026-07-28. */
export type Era = McpRequestContext['era'];
export const ERAS: readonly Era[] = ['legacy', 'modern'];

/**
 * How one era's clients on a transport hear of a change. The eras differ: an initialize-era
 * client is told on its connection or session (resource updates only if it called
 * `resources/subscribe`); a 2026-07-28 client only on a `subscriptions/listen` stream that asked
 * for the notification. Neither may throw: a client gone away is not the caller's problem.
 */
export interface EraDelivery {
  /** Sends `notifications/tools/list_changed` to this era's clients. */
  toolsChanged(): void;
  /** Sends `notifications/resources/updated` to this era's subscribers of `uri`, and no one else. */
  resourceUpdated(uri: string): void;
}

/**
 * A transport serving the bridge, whatever carries the messages. Every transport delivers both
 * kinds of change to both eras: `delivery` is a record over {@link Era}, so a transport that
 * forgets one (as stdio once forgot resource updates for 2026-07-28 clients) does not compile.
 */
export interface ServedTransport {
  /** The HTTP endpoint, e.g. `http://127.0.0.1:43123/mcp`; none for stdio. */
  url?: string;
  /** Resolves when the transport stops: the client closed stdin, or the server closed. */
  closed: Promise<void>;
  /** Stops serving: answers calls in flight, closes connections. Resolves once stopped. */
  close(): Promise<void>;
  delivery: Record<Era, EraDelivery>;
}

/** What the bridge hands every transport, whatever its kind. */
export interface TransportSetup {
  /** Makes the protocol server of a connection, session or request; `taskFeed` feeds task listeners. */
  factory: ((context: McpRequestContext) => Server) & {
    taskFeed: TaskFeed;
    direct?: DirectCall;
    stdioLane?: (output: StdioOutput) => StdioLane;
    sessionLane?: SessionLaneFactory;
    /** An initialize-era HTTP session ended: what only it could reach is let go (its tasks). */
    sessionClosed?: (sessionId: string) => void;
  };
  log: Logger;
  /**
   * Tells initialize-era subscribers of `uri` (tracked per server instance by
   * `ResourceSubscriptions`, on any transport) that it changed.
   */
  legacyResourceUpdated(uri: string): void;
  /** Whether the server offers resource subscriptions (the catalog has resources or templates). */
  resourceSubscriptions: boolean;
  /** The current input schema of a tool by name (SEP-2243 `Mcp-Param-*` header checks). */
  toolInputSchema(name: string): Record<string, unknown> | undefined;
  /**
   * Routes a transport with URLs answers before its own (the upstream sign-in redirect, which a
   * browser brings without any bearer token). Transports without URLs ignore them.
   */
  routes?: HttpHandlerOptions['routes'];
}

/** Starts a transport of one kind; resolves once it is serving. */
export type StartTransport<T extends TransportOptions> = (
  options: T,
  setup: TransportSetup,
) => Promise<ServedTransport>;
