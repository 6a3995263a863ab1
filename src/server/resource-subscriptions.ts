import {
  type McpRequestContext,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { quote } from '../quote-input.js';
import { MAX_URI_CHARS } from '../request-bounds.js';
import { resourceNotFound } from './handle-resources.js';

/**
 * Who is subscribed to which resource, for `notifications/resources/updated`. Only the catalog's
 * resources can change (stored tool outputs never do), so a server declares
 * `resources.subscribe` only when its catalog has fixed resources or templates.
 *
 * Initialize-era clients subscribe with `resources/subscribe` on their connection or session
 * (tracked here, per server instance, on any transport); 2026-07-28 clients subscribe on a
 * `subscriptions/listen` stream, which the SDK tracks itself (see `EraDelivery` in
 * transports/transport.ts).
 */
export class ResourceSubscriptions {
  readonly #byServer = new Map<Server, Set<string>>();

  /**
   * Declares the capability on a new server and, in the initialize era, registers
   * `resources/subscribe` and `resources/unsubscribe`. `exists` says whether a URI names a
   * resource this server can read: subscribing to anything else is -32602.
   */
  install(
    server: Server,
    context: McpRequestContext,
    exists: (uri: string, ctx: ServerContext) => Promise<boolean>,
  ): void {
    server.registerCapabilities({ resources: { subscribe: true } });
    if (context.era === 'modern') return;
    server.setRequestHandler('resources/subscribe', async (request, ctx) => {
      const { uri } = request.params;
      // The bounds first: they read the request alone, while the lookup matches the URI (up to a
      // million characters) against every template and may ask the shared store for it.
      this.#withRoomFor(server, uri);
      if (!(await exists(uri, ctx))) throw resourceNotFound(uri);
      // Again: the connection's other subscriptions may have taken the room during the lookup.
      this.#withRoomFor(server, uri).add(uri);
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', (request) => {
      this.#byServer.get(server)?.delete(request.params.uri);
      return {};
    });
  }

  /** Sends `notifications/resources/updated` to every initialize-era subscriber of `uri`. */
  updated(uri: string): void {
    this.#prune();
    for (const [server, uris] of this.#byServer) {
      if (uris.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => {});
    }
  }

  // The subscriptions of `server`'s connection, which has room for `uri` or holds it: else -32602.
  #withRoomFor(server: Server, uri: string): Set<string> {
    this.#prune();
    const uris = this.#byServer.get(server) ?? new Set<string>();
    if (!uris.has(uri)) refuseBeyondBounds(uri, uris.size);
    this.#byServer.set(server, uris);
    return uris;
  }

  // A server whose connection closed has no transport any more: forget its subscriptions.
  #prune(): void {
    for (const [server, uris] of this.#byServer) {
      if (!server.transport || uris.size === 0) this.#byServer.delete(server);
    }
  }
}

// Every URI a template matches names a resource, so a client could hold as many subscriptions, as
// long, as it cared to send: a connection's are bounded (the SDK's own bound on a 2026-07-28
// connection's `subscriptions/listen` streams is 1,024 too).
const MAX_SUBSCRIPTIONS = 1_024;

function refuseBeyondBounds(uri: string, held: number): void {
  if (uri.length > MAX_URI_CHARS) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Cannot subscribe to ${quote(uri)}: a subscribed URI is at most ${MAX_URI_CHARS} characters (this one has ${uri.length}).`,
    );
  }
  if (held >= MAX_SUBSCRIPTIONS) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Cannot subscribe to ${quote(uri)}: this connection is subscribed to ${MAX_SUBSCRIPTIONS} resources already, the most it may be; unsubscribe from some first.`,
    );
  }
}
