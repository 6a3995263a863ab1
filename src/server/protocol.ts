import { startHttp } from '../transports/start-http.js';
import { startStdio } from '../transports/start-stdio.js';
import type { StartTransport, TransportOptions } from '../transports/transport.js';

// The protocol side of a bridge: what needs the MCP SDK (its protocol schemas, the server, the
// transports; ~16 ms of module evaluation). `serve` loads it while the sources read their files,
// not before (see serve.ts).

export { createServerFactory } from './create-server.js';
export { ResourceSubscriptions } from './resource-subscriptions.js';

/**
 * The transports, one per `TransportOptions` kind: each serves both eras and delivers every
 * change to both (see `ServedTransport`).
 */
export const TRANSPORTS: {
  [K in TransportOptions['kind']]: StartTransport<Extract<TransportOptions, { kind: K }>>;
} = { stdio: startStdio, http: startHttp };
