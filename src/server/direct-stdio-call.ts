import {
  isJSONRPCNotification,
  type JSONRPCMessage,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { AskSettings } from '../ask/call-asking.js';
import { forgetClientRoots, trackClientRoots } from '../client-roots.js';
import { isPlainObject } from '../plain-object.js';
import type { ToolRegistry } from '../registry.js';
import {
  answerToolsCall,
  isCancellation,
  plainToolsCall,
  type ToolsCallParams,
  type ToolsCallSite,
} from './answer-tools-call.js';
import type { ServerSetup } from './create-server.js';
import { type DirectCall, errorAnswer } from './direct-call.js';
import { answerWithPage, type ListPage, plainListRequest, toolsListPage } from './list-json.js';
import { plainInitializeRequest } from './plain-initialize.js';

/** How a lane answers on its connection: the stdio transport. */
export interface StdioOutput {
  /** Sends a message, serialized by the transport. */
  send(message: JSONRPCMessage): Promise<void>;
  /** Writes one message already serialized: a whole line, newline included. */
  write(line: Uint8Array): Promise<void>;
}

/** Takes the messages of one stdio connection it answers itself; the rest go on to the SDK. */
export interface StdioLane {
  /**
   * Sees each parsed line first, before the transport checks it is JSON-RPC: `true` when the lane
   * took it (the SDK must not see it). It takes only a request that the SDK's JSON-RPC schema
   * accepts (its own checks are stricter), and acts on a notification only once that schema does.
   */
  take(server: Server, message: unknown): boolean;
  /**
   * Answers a plain `initialize` arriving before the SDK has pinned a server (see
   * plain-initialize.ts): the server `open` makes is initialized with the request as the SDK's own
   * handler would (its `_oninitialize`), and returned for the SDK to pin with the next message the
   * lane leaves to it. Undefined when the SDK answers instead. Until its answer is written, the
   * lane takes no request: answers keep the order of a client that sent more without waiting.
   */
  initialize(message: unknown, open: () => Server): Server | undefined;
  /**
   * On a connection the SDK pinned to 2026-07-28: a plain `tools/list` whose envelope the SDK has
   * accepted once (see `createDirectCall`), answered as the SDK's codec encodes it.
   */
  takeModern(message: unknown): boolean;
  /**
   * A plain 2026-07-28 `tools/list` arriving before the SDK has pinned a server (see
   * `DirectCall.stdioOpeningList`), answered here: its envelope, for the SDK to pin a 2026-07-28
   * server with when a message is left to it; undefined when the SDK answers instead.
   */
  openModern(message: unknown): Record<string, unknown> | undefined;
  /**
   * What the lane takes between its `initialize` and the SDK's pinning: `notifications/initialized`
   * (the SDK's handler only calls `server.oninitialized`, which the bridge leaves unset) and a plain
   * `tools/list`. The first message it leaves has the SDK pin the server.
   */
  takeOpening(server: Server, message: unknown): boolean;
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
  output: StdioOutput,
  direct: Pick<DirectCall, 'stdioList' | 'stdioOpeningList'>,
): StdioLane {
  // A call's one signal: aborted by the client's `notifications/cancelled`, by the connection
  // closing, and at shutdown (followed here once per connection, not joined per call).
  const running = new Map<string | number, LaneCall>();
  const shutdown = () => {
    for (const call of running.values()) call.controller.abort(setup.shutdown.reason);
  };
  setup.shutdown.addEventListener('abort', shutdown, { once: true });
  // From the plain `initialize` the lane takes until its answer is handed to the transport: the
  // requests that arrive meanwhile (a client that did not wait) are left to the SDK, which answers
  // them after it and in order. Answered here, they would overtake it.
  let initializing = false;
  // What the server's connection fixes at `initialize`, made once rather than per call.
  let connection: { server: Server; site: Omit<ToolsCallSite, 'roots'>; roots: Roots } | undefined;
  // The `tools/list` page a client will ask for next, made while it reads the one before (see
  // `listAhead`), and the registry it was made from (weakly: a page never asked for must not keep
  // tools since replaced alive); `wanted` is the cursor of the one to make.
  let ahead: { page: ListPage; of: WeakRef<ToolRegistry> } | undefined;
  let wanted: { cursor: string | undefined } | undefined;
  // Pages made ahead that the client never asked for: past `MAX_UNUSED_AHEAD`, none is made on this
  // connection (a client asking for the first page over and over would double the work of each).
  let unused = 0;

  return {
    take(server, message) {
      const method = (message as { method?: unknown } | null)?.method;
      if (method === 'notifications/cancelled' || method === 'notifications/roots/list_changed') {
        if (!isJSONRPCNotification(message)) return false;
        if (method === 'notifications/roots/list_changed') {
          // Calls taken here overtake what the SDK has yet to dispatch: the one notification that
          // changes what a call reads takes effect before any later call, as in the SDK's order.
          forgetClientRoots(server);
        } else if (isCancellation(message)) {
          const call = running.get(message.params.requestId);
          if (call) call.cancelled = true;
          call?.controller.abort(message.params.reason);
        }
        return false;
      }
      if (method === 'tools/list') return !initializing && listTools(server, message);
      if (method !== 'tools/call' || initializing) return false;
      const call = plainToolsCall(message);
      // Before `initialize` the SDK answers (the era and the client are not known yet). A `_meta`
      // of more than a progress token is the SDK's to read.
      if (!call || running.has(call.id) || server.getClientVersion() === undefined) return false;
      for (const key in call.params._meta) if (key !== 'progressToken') return false;
      const tool = setup.registry().get(call.params.name);
      if (!tool || (tool.definition.taskSupport ?? 'forbidden') !== 'forbidden') return false;

      if (connection?.server !== server) {
        connection = {
          server,
          site: {
            modern: false,
            capabilities: server.getClientCapabilities() ?? {},
            project: (result, outputSchema) => server.projectCallToolResult(result, outputSchema),
            signalFollowsShutdown: true,
          },
          roots: trackClientRoots(server),
        };
      }
      const controller = new AbortController();
      if (setup.shutdown.aborted) controller.abort(setup.shutdown.reason);
      const entry: LaneCall = { controller, cancelled: false };
      running.set(call.id, entry);
      const ctx = stdioContext(server, call, controller.signal);
      const roots = connection.roots;
      const site = { ...connection.site, roots: () => roots(ctx) };
      void answer(call, ctx, site, entry);
      return true;
    },
    initialize(message, open) {
      const request = plainInitializeRequest(message);
      if (!request) return undefined;
      const server = open();
      const oninitialize = (server as unknown as { _oninitialize?: unknown })._oninitialize;
      if (typeof oninitialize !== 'function') return undefined;
      // Called now, not on a later tick: its state is set before the next line of the same chunk
      // (a client that sends its first list without waiting) is read.
      initializing = true;
      let result: Promise<unknown>;
      try {
        result = Promise.resolve(oninitialize.call(server, { method: 'initialize', params: request.params }));
      } catch (error) {
        result = Promise.reject(error);
      }
      void result
        .then(
          (result) => ({ result, jsonrpc: '2.0', id: request.id }) as JSONRPCMessage,
          (error) => errorAnswer(request.id, error).message as JSONRPCMessage,
        )
        .then((answer) => {
          initializing = false;
          const sent = output.send(answer);
          return 'result' in answer && listsHere(server) ? sent.then(() => listAhead(undefined)) : sent;
        })
        .catch(() => {});
      return server;
    },
    takeModern(message) {
      if ((message as { method?: unknown } | null)?.method !== 'tools/list') return false;
      const answer = direct.stdioList(message);
      if (!answer) return false;
      void output.write(answer).catch(() => {});
      return true;
    },
    openModern(message) {
      if ((message as { method?: unknown } | null)?.method !== 'tools/list') return undefined;
      const opening = direct.stdioOpeningList(message);
      if (!opening) return undefined;
      void output.write(opening.answer).catch(() => {});
      return opening.envelope;
    },
    takeOpening(server, message) {
      const method = (message as { method?: unknown } | null)?.method;
      if (method === 'notifications/initialized')
        return server.oninitialized === undefined && plainNotification(message);
      // A list sent before the answer to `initialize` was written is left to the SDK (see
      // `initializing`).
      return method === 'tools/list' && !initializing && listTools(server, message);
    },
    closed() {
      setup.shutdown.removeEventListener('abort', shutdown);
      ahead = undefined;
      wanted = undefined;
      for (const call of running.values()) {
        call.cancelled = true;
        call.controller.abort(new Error('The connection closed.'));
      }
      running.clear();
    },
  };

  async function answer(
    call: { id: string | number; params: ToolsCallParams },
    ctx: ServerContext,
    site: ToolsCallSite,
    entry: LaneCall,
  ): Promise<void> {
    let message: JSONRPCMessage;
    try {
      const result = await answerToolsCall(call.params, ctx, setup, askSettings, site);
      message = { result, jsonrpc: '2.0', id: call.id } as JSONRPCMessage;
    } catch (error) {
      message = errorAnswer(call.id, error).message as JSONRPCMessage;
    }
    if (running.get(call.id) === entry) running.delete(call.id);
    // A call the client cancelled gets no answer, as the SDK does it; one stopped by shutdown does.
    if (entry.cancelled) return;
    await output.send(message).catch(() => {});
  }

  // A plain `tools/list` of a client since 2025-06-18 (older ones read the title elsewhere, see
  // `listEntry`), written from the entries' JSON (see list-json.ts). The SDK answers the rest, and
  // every error.
  function listTools(server: Server, message: unknown): boolean {
    if (!listsHere(server)) return false;
    const request = plainListRequest(message);
    if (!request) return false;
    const registry = setup.registry();
    const made =
      ahead?.of.deref() === registry && ahead.page.cursor === request.cursor ? ahead.page : undefined;
    if (ahead && !made) unused++;
    ahead = undefined;
    wanted = undefined;
    const page = made ?? toolsListPage(registry, request.cursor);
    if (!page) return false;
    const written = output.write(answerWithPage(page, request.id));
    const { nextCursor } = page;
    void (nextCursor === undefined ? written : written.then(() => listAhead(nextCursor))).catch(() => {});
    return true;
  }

  function listsHere(server: Server): boolean {
    const version = server.getNegotiatedProtocolVersion();
    return server.getClientVersion() !== undefined && version !== undefined && version >= '2025-06-18';
  }

  // Makes the page at `cursor` once the page before is written (made sooner, it would hold up the
  // pipe's transfer of that page): a client that lists reads and parses one page before it asks
  // for the next, and the bridge would otherwise wait idle meanwhile, then serialize the next page
  // while the client waits (GitHub's three pages on a first start: ~10 ms each). Also made after
  // `initialize`, for the first page. A request that arrives first makes its page itself, and the
  // one made ahead is dropped.
  function listAhead(cursor: string | undefined): void {
    if (unused >= MAX_UNUSED_AHEAD) return;
    const registry = setup.registry();
    const want = { cursor };
    wanted = want;
    setImmediate(() => {
      if (wanted !== want || setup.registry() !== registry) return;
      wanted = undefined;
      const page = toolsListPage(registry, cursor);
      ahead = page && { page, of: new WeakRef(registry) };
    });
  }
}

/** Pages made ahead and never asked for, after which a connection gets no more (see `listAhead`). */
const MAX_UNUSED_AHEAD = 3;

interface LaneCall {
  controller: AbortController;
  /** Cancelled by the client, or its connection closed: nothing is sent. */
  cancelled: boolean;
}

type Roots = ReturnType<typeof trackClientRoots>;

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

// A JSON-RPC notification with no more than plain params (what the SDK's notification schema takes).
function plainNotification(message: unknown): boolean {
  if (!isPlainObject(message) || message.jsonrpc !== '2.0') return false;
  for (const key in message) if (key !== 'jsonrpc' && key !== 'method' && key !== 'params') return false;
  return message.params === undefined || isPlainObject(message.params);
}
