import { randomUUID } from 'node:crypto';
import type { McpRequestContext, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { logSdkErrors } from './log-sdk-errors.js';
import { StdioLineTransport } from './stdio-line-transport.js';
import type { Era, StartTransport, StdioTransportOptions } from './transport.js';

/**
 * Serves MCP on this process's stdin/stdout, both eras (the first message decides). `closed`
 * resolves when the client closes stdin.
 */
export const startStdio: StartTransport<StdioTransportOptions> = async (_options, setup) => {
  // The SDK pins one server instance per connection without exposing it; the last one the factory
  // made is the pinned one (a discarded probe comes first). Changes go out through it, to the era
  // it serves: a 2026-07-28 instance sends them to its `subscriptions/listen` subscriptions.
  let pinned: { server: Server; era: Era } | undefined;
  // The server the lane initialized, until the SDK pins it (see `pinOpened`).
  let opened: Server | undefined;
  const pin = (context: McpRequestContext) => {
    const server = context.era === 'legacy' && opened ? opened : setup.factory(context);
    opened = undefined;
    pinned = { server, era: context.era };
    return server;
  };
  const transport = new StdioLineTransport();
  // Plain initialize-era calls and lists skip the SDK's per-message checks (see `createStdioLane`),
  // and so does a plain `initialize`: the SDK's first request cost a start ~15 ms (it builds its
  // message schemas), so the lane answers it and the SDK pins the server the lane initialized just
  // before the first message the lane leaves it (for the usual client, its first call:
  // `notifications/initialized` and lists the lane takes).
  const lane = setup.factory.stdioLane?.(transport);
  // The envelope of a 2026-07-28 client whose first list the lane answered (`openModern`): the
  // lane answers its plain lists until it sends a message the lane leaves to the SDK. Just before
  // that message, a request with the same envelope, whose answer is dropped, has the SDK pin a
  // 2026-07-28 server, as that first list would have (so an `initialize` is then refused, as the
  // SDK refuses it on such a connection). Any request pins; `ping`, which 2026-07-28 no longer
  // has, is the cheapest to answer (-32601). Pinning costs the SDK's first 2026-07-28 request
  // (~60 ms with GitHub's spec: it builds its schemas), which a client that only lists never pays.
  let modern: Record<string, unknown> | undefined;
  const pinModern = (envelope: Record<string, unknown>) => {
    transport.deliverQuietly({
      jsonrpc: '2.0',
      id: `bridge-pin-${randomUUID()}`,
      method: 'ping',
      params: { _meta: envelope },
    });
  };
  // The server the lane initialized is pinned just before the first message the lane leaves to the
  // SDK, by a request of no era (`ping`, answered off the wire): the SDK then hands that message,
  // and every later one, to the server as it would on a connection whose `initialize` it answered.
  // Left to pin, the message itself could choose another era (a 2026-07-28 `_meta` envelope has the
  // SDK pin a 2026-07-28 server, on which `ping` and list_changed are lost) or be refused (an
  // envelope the SDK rejects before an era is pinned).
  const pinOpened = () => {
    transport.deliverQuietly({ jsonrpc: '2.0', id: `bridge-pin-${randomUUID()}`, method: 'ping' });
  };
  if (lane) {
    transport.interceptor = {
      take: (message) => {
        if (pinned)
          return pinned.era === 'legacy' ? lane.take(pinned.server, message) : lane.takeModern(message);
        if (opened) {
          if (lane.takeOpening(opened, message)) return true;
          pinOpened();
          return false;
        }
        if (modern) {
          if (lane.takeModern(message)) return true;
          const envelope = modern;
          modern = undefined;
          pinModern(envelope);
          return false;
        }
        modern = lane.openModern(message);
        if (modern) return true;
        opened = lane.initialize(message, () => setup.factory({ era: 'legacy' }));
        return opened !== undefined;
      },
      closed: () => lane.closed(),
    };
  }
  const handle = serveStdio(pin, {
    onerror: logSdkErrors(setup.log, 'stdio'),
    transport,
  });
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  const on = (era: Era) => (pinned?.era === era ? pinned.server : undefined);
  return {
    closed,
    close: () => handle.close(),
    delivery: {
      legacy: {
        toolsChanged: () => {
          // Initialized by the lane, not pinned yet: the server has no connection to send it on.
          if (opened) void transport.send(TOOLS_CHANGED).catch(() => {});
          else
            void on('legacy')
              ?.sendToolListChanged()
              .catch(() => {});
        },
        resourceUpdated: (uri) => setup.legacyResourceUpdated(uri),
      },
      modern: {
        toolsChanged: () =>
          void on('modern')
            ?.sendToolListChanged()
            .catch(() => {}),
        resourceUpdated: (uri) =>
          void on('modern')
            ?.sendResourceUpdated({ uri })
            .catch(() => {}),
      },
    },
  };
};

const TOOLS_CHANGED = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } as const;
