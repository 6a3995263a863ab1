import type { StartTransport, TransportOptions } from '../transports/transport.js';

// The protocol side of a bridge: what needs the MCP SDK (its protocol schemas, the server, the
// transports; ~16 ms of module evaluation). `serve` loads it while the sources read their files,
// not before (see serve.ts).

export { createServerFactory } from './create-server.js';
export { ResourceSubscriptions } from './resource-subscriptions.js';

/**
 * The transports, one per `TransportOptions` kind, each loaded when chosen (a bridge on stdio never
 * evaluates the HTTP server, nor Node's HTTP module): each serves both eras and delivers every
 * change to both (see `ServedTransport`).
 */
export const TRANSPORTS: {
  [K in TransportOptions['kind']]: () => Promise<StartTransport<Extract<TransportOptions, { kind: K }>>>;
} = {
  stdio: () => import('../transports/start-stdio.js').then((module) => module.startStdio),
  http: () => import('../transports/start-http.js').then((module) => module.startHttp),
};
