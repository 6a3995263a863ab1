import { fileURLToPath } from 'node:url';
import type { Server, ServerContext } from '@modelcontextprotocol/server';

/**
 * The client's MCP roots as local directories, for tools that confine paths to them. Asked with
 * `roots/list` the first time a tool needs them, kept for the connection, and asked again after
 * `notifications/roots/list_changed`. `undefined` when the client offers no roots: it did not
 * declare the capability, or the request is of the 2026-07-28 era, which has no server→client
 * requests.
 */
export function trackClientRoots(server: Server): (ctx: ServerContext) => Promise<string[] | undefined> {
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
  get: (ctx: ServerContext) => Promise<string[] | undefined>;
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
  let cached: Promise<string[] | undefined> | undefined;
  const forget = () => {
    cached = undefined;
  };
  server.setNotificationHandler('notifications/roots/list_changed', forget);
  const get = (ctx: ServerContext) => {
    if (!server.getClientCapabilities()?.roots) return Promise.resolve(undefined);
    cached ??= ctx.mcpReq
      .send({ method: 'roots/list' })
      .then((result) =>
        result.roots.filter((root) => root.uri.startsWith('file://')).map((root) => fileURLToPath(root.uri)),
      )
      .catch(() => {
        cached = undefined;
        return undefined;
      });
    return cached;
  };
  return { get, forget };
}
