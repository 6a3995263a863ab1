import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { ClientRoot } from './ask/client-ask.js';

/**
 * The client's MCP roots as it lists them, for tools that confine paths to them (each call reads
 * them once, through `readLocalRoots`). Asked with `roots/list` the first time a tool needs them,
 * kept for the connection, and asked again after `notifications/roots/list_changed`. `undefined`
 * when the client offers no roots: it did not declare the capability, or the request is of the
 * 2026-07-28 era, which has no server→client requests. Rejects when `roots/list` fails (and is
 * asked again next time): a client that offers roots is never taken for one that offers none.
 */
export function trackClientRoots(
  server: Server,
): (ctx: ServerContext) => Promise<readonly ClientRoot[] | undefined> {
  return trackerOf(server).get;
}

/**
 * Forgets the roots kept for `server`'s connection, at once: for a reader that takes messages
 * before the SDK dispatches them (the stdio lane), so that a call read after the client's
 * `notifications/roots/list_changed` never runs with the roots that notification replaced.
 */
export function forgetClientRoots(server: Server): void {
  trackers.get(server)?.forget();
}

interface Tracker {
  get: (ctx: ServerContext) => Promise<readonly ClientRoot[] | undefined>;
  forget: () => void;
}

// One tracker per server instance, whoever asks first (plain calls and task calls share it).
const trackers = new WeakMap<Server, Tracker>();

function trackerOf(server: Server): Tracker {
  let tracker = trackers.get(server);
  if (!tracker) {
    tracker = newTracker(server);
    trackers.set(server, tracker);
  }
  return tracker;
}

function newTracker(server: Server): Tracker {
  let cached: Promise<readonly ClientRoot[]> | undefined;
  const forget = () => {
    cached = undefined;
  };
  server.setNotificationHandler('notifications/roots/list_changed', forget);
  const get = (ctx: ServerContext) => {
    if (!server.getClientCapabilities()?.roots) return Promise.resolve(undefined);
    if (cached) return cached;
    const asked = ctx.mcpReq.send({ method: 'roots/list' }).then((result) => result.roots);
    cached = asked;
    asked.catch(() => {
      if (cached === asked) cached = undefined;
    });
    return asked;
  };
  return { get, forget };
}
