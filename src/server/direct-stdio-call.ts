import type { JSONRPCMessage, Server, ServerContext } from '@modelcontextprotocol/server';
import type { AskSettings } from '../ask/call-asking.js';
import { forgetClientRoots, trackClientRoots } from '../client-roots.js';
import { answerToolsCall, isPlainObject, plainToolsCall, type ToolsCallParams } from './answer-tools-call.js';
import type { ServerSetup } from './create-server.js';
import { errorAnswer } from './direct-call.js';

/** Takes the messages of one stdio connection it answers itself; the rest go on to the SDK. */
export interface StdioLane {
  /** `true` when the lane took `message` (the SDK must not see it). */
  take(server: Server, message: JSONRPCMessage): boolean;
  /** The connection closed: calls in flight are aborted, as the SDK aborts its own. */
  closed(): void;
}

/**
 * The direct lane of an initialize-era stdio connection: a plain `tools/call` (a known tool that
 * never runs as a task, params of only a name, arguments and a progress token) is answered here with
 * the same handler body as the SDK's (`answerToolsCall`), without the SDK's per-message schema
 * checks of the request and of our own result. Questions to the client, roots, progress and log
 * messages go through the connection's server exactly as the SDK's context sends them; a
 * `notifications/cancelled` for a call taken here aborts it. `test/core/direct-stdio-call.test.ts`
 * compares both paths.
 */
export function createStdioLane(
  setup: ServerSetup,
  askSettings: AskSettings,
  send: (message: JSONRPCMessage) => Promise<void>,
): StdioLane {
  const running = new Map<string | number, AbortController>();

  return {
    take(server, message) {
      if (isCancellation(message)) {
        running.get(message.params.requestId)?.abort(message.params.reason);
        return false;
      }
      // Calls taken here overtake what the SDK has yet to dispatch: the one notification that
      // changes what a call reads takes effect before any later call, as in the SDK's order.
      if ((message as { method?: unknown }).method === 'notifications/roots/list_changed') {
        forgetClientRoots(server);
        return false;
      }
      const call = plainToolsCall(message);
      // Before `initialize` the SDK answers (the era and the client are not known yet). A `_meta`
      // of more than a progress token is the SDK's to read.
      if (!call || running.has(call.id) || server.getClientVersion() === undefined) return false;
      for (const key in call.params._meta) if (key !== 'progressToken') return false;
      const tool = setup.registry().get(call.params.name);
      if (!tool || (tool.definition.taskSupport ?? 'forbidden') !== 'forbidden') return false;

      const controller = new AbortController();
      running.set(call.id, controller);
      const ctx = stdioContext(server, call, controller.signal);
      const clientRoots = trackClientRoots(server);
      const site = {
        modern: false,
        capabilities: server.getClientCapabilities() ?? {},
        roots: () => clientRoots(ctx),
        project: server.projectCallToolResult.bind(server),
      };
      answerToolsCall(call.params, ctx, setup, askSettings, site)
        .then(
          (result) => ({ result, jsonrpc: '2.0', id: call.id }),
          (error) => errorAnswer(call.id, error).message,
        )
        // A cancelled call gets no answer, as the SDK does it.
        .then((answer) => (controller.signal.aborted ? undefined : send(answer as JSONRPCMessage)))
        .catch(() => {})
        .finally(() => running.delete(call.id));
      return true;
    },
    closed() {
      for (const controller of running.values()) controller.abort(new Error('The connection closed.'));
      running.clear();
    },
  };
}

function isCancellation(
  message: unknown,
): message is { params: { requestId: string | number; reason?: string } } {
  if (!isPlainObject(message) || message.method !== 'notifications/cancelled' || 'id' in message)
    return false;
  const params = message.params;
  return (
    isPlainObject(params) && (typeof params.requestId === 'string' || typeof params.requestId === 'number')
  );
}

/**
 * The request context the call path reads (see `answerToolsCall`), as the SDK builds it for an
 * initialize-era stdio request: no session, the call's own signal, notifications and requests to
 * the client related to the call, log messages under the level the client set.
 */
function stdioContext(
  server: Server,
  call: { id: string | number; params: ToolsCallParams },
  signal: AbortSignal,
): ServerContext {
  const related = { relatedRequestId: call.id };
  const context = {
    sessionId: undefined,
    mcpReq: {
      id: call.id,
      method: 'tools/call',
      _meta: call.params._meta,
      requestState: () => undefined,
      signal,
      notify: (notification: Parameters<Server['notification']>[0]) =>
        server.notification(notification, related),
      log: (level: string, data: unknown, logger?: string) =>
        server.sendLoggingMessage({ level, data, ...(logger === undefined ? {} : { logger }) } as never),
      send: (request: Parameters<Server['request']>[0], options?: Record<string, unknown>) =>
        server.request(request, { ...options, ...related } as never),
    },
    http: undefined,
  };
  return context as unknown as ServerContext;
}
