import {
  type McpRequestContext,
  Server,
  type ServerContext,
  type ServerOptions,
  type Tool,
} from '@modelcontextprotocol/server';
import type { AskSettings } from '../ask/call-asking.js';
import { RequestStateKeeper, type StateClaims } from '../ask/request-state.js';
import type { Catalog } from '../catalog.js';
import { trackClientRoots } from '../client-roots.js';
import type { Logger } from '../logger.js';
import type { RegisteredTool, ToolRegistry } from '../registry.js';
import type { ResourceStore } from '../resource-store.js';
import type { SignInCallbacks } from '../sign-in/sign-in-callbacks.js';
import { createTaskSupport } from '../tasks/install-tasks.js';
import { interceptToolsCall } from '../tasks/intercept-tools-call.js';
import type { TaskFeed } from '../tasks/task-listen.js';
import type { TaskOptions } from '../tasks/task-runner.js';
import { answerToolsCall, plainToolsCallParams, type ToolsCallParams } from './answer-tools-call.js';
import { callSettled } from './call-settled.js';
import { createDirectCall, type DirectCall } from './direct-call.js';
import { createSessionLane, type LaneEvents, type SessionLane } from './direct-session-call.js';
import { createStdioLane, type StdioLane, type StdioOutput } from './direct-stdio-call.js';
import { promptHandlers, registerCompletionHandler } from './handle-prompts.js';
import { resourceHandlers } from './handle-resources.js';
import { listEntry } from './list-entry.js';
import { LIST_CACHE_HINT } from './list-json.js';
import { toolsPageEnd } from './page-ends.js';
import { listPage, toolsVersion } from './paginate.js';
import type { ResourceSubscriptions } from './resource-subscriptions.js';

/** Everything one protocol server instance needs; shared by every instance the factory makes. */
export interface ServerSetup {
  /** Name and version announced to clients. */
  info: { name: string; version: string };
  /** Text for the client's model on how to use this server. */
  instructions?: string;
  /** The current tools; a function so that a reload can swap them under running servers. */
  registry: () => ToolRegistry;
  resources: ResourceStore;
  /** Prompts, fixed resources and resource templates served beside the tools. */
  catalog?: Catalog;
  /** Subscriptions to the catalog's resources; without it, no `resources.subscribe`. */
  subscriptions?: ResourceSubscriptions;
  log: Logger;
  /** Aborted at shutdown: aborts every call in flight. */
  shutdown: AbortSignal;
  /** Lifetime bounds, polling pace and store of tasks (tools with `taskSupport`). */
  tasks?: TaskOptions;
  /** How tools ask the client (see `ClientAsk`): the request-state key, the answer timeout. */
  ask?: AskOptions;
  /**
   * Longest silence of a call with a progress token before the server sends a keep-alive
   * progress notification (clients reset their timeout on progress). Default 10 s.
   */
  progressKeepAliveMs?: number;
  /** Where upstream OAuth sign-ins receive their redirects (see `UpstreamSignIn`). */
  signIn?: SignInCallbacks;
}

/** Settings of asking the client. */
export interface AskOptions {
  /**
   * HMAC key (at least 32 bytes) of the 2026-07-28 request states. Give every instance behind one
   * endpoint the same key; default: random per process.
   */
  stateKey?: string;
  /** How long an initialize-era question waits for the client's answer. Default 5 minutes. */
  timeoutMs?: number;
  /** The used request states of every instance behind the endpoint (the shared store's). */
  claims?: StateClaims;
}

/**
 * Returns the SDK server factory: one low-level `Server` per stdio connection, initialize-era
 * HTTP session, or 2026-07-28 HTTP request, all answering from the same registry and store.
 */
export function createServerFactory(setup: ServerSetup): ((context: McpRequestContext) => Server) & {
  taskFeed: TaskFeed;
  direct: DirectCall;
  stdioLane: (output: StdioOutput) => StdioLane;
  sessionLane: (session: { server: Server; events: LaneEvents; sessionId: string }) => SessionLane;
  sessionClosed: (sessionId: string) => void;
} {
  // Each entry built once per registry and per place of the title (see `listEntry`), when a page
  // holding it is first asked for: building every entry for the first page read all of GitHub's
  // 1,223 tools' kept text, where a page holds 500.
  const listCaches = {
    top: new WeakMap<ToolRegistry, Array<Tool | undefined>>(),
    annotations: new WeakMap<ToolRegistry, Array<Tool | undefined>>(),
  };
  const describeTools = (registry: ToolRegistry, titleIn: 'top' | 'annotations') => {
    const cache = listCaches[titleIn];
    let entries = cache.get(registry);
    if (!entries) {
      entries = new Array<Tool | undefined>(registry.tools.length);
      cache.set(registry, entries);
    }
    const built = entries;
    const { length } = registry.tools;
    return {
      length,
      slice(start = 0, end = length): Tool[] {
        const page: Tool[] = [];
        for (let index = start; index < Math.min(end, length); index++) {
          let entry = built[index];
          if (!entry) {
            entry = listEntry(registry.tools[index] as RegisteredTool, titleIn);
            built[index] = entry;
          }
          page.push(entry);
        }
        return page;
      },
    };
  };

  // One keeper per factory: a round's state must open on the instance that serves the retry.
  const askSettings: AskSettings = {
    keeper: new RequestStateKeeper({
      ...(setup.ask?.stateKey === undefined ? {} : { key: setup.ask.stateKey }),
      ...(setup.ask?.claims ? { claims: setup.ask.claims } : {}),
    }),
    ...(setup.ask?.timeoutMs === undefined ? {} : { timeoutMs: setup.ask.timeoutMs }),
  };

  const registerCatalog = catalogHandlers(setup, askSettings);

  // 2026-07-28 plain calls over HTTP, answered without a per-request SDK server (see `direct-call.ts`).
  const direct = createDirectCall(setup, askSettings);

  // One task layer for every instance, so a task created on one request is found by the next.
  const tasks = createTaskSupport(setup, setup.tasks, askSettings);

  // The same for every instance; a 2026-07-28 HTTP server builds one instance per request.
  const serverOptions = {
    capabilities: { tools: { listChanged: true }, resources: {}, logging: {} },
    ...(setup.instructions === undefined ? {} : { instructions: setup.instructions }),
    cacheHints: {
      'tools/list': LIST_CACHE_HINT,
      'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'public' },
      'resources/list': { ttlMs: 0, cacheScope: 'private' },
      'resources/read': { ttlMs: 0, cacheScope: 'private' },
      'prompts/list': { ttlMs: 3_600_000, cacheScope: 'public' },
    },
  } satisfies ServerOptions;

  const factory = (context: McpRequestContext) => {
    const server = new Server(setup.info, serverOptions);

    // Initialize era: roots by a `roots/list` request, kept per connection. (2026-07-28: by `prepareAsking`.)
    const clientRoots = trackClientRoots(server);

    server.setRequestHandler('tools/list', (request, ctx) => {
      if (context.era === 'modern') direct.accepted(ctx.mcpReq.envelope);
      // Before 2025-06-18 a tool had no top-level title: such clients read `annotations.title`.
      const version = context.era === 'modern' ? undefined : server.getNegotiatedProtocolVersion();
      const titleIn = version !== undefined && version < '2025-06-18' ? 'annotations' : 'top';
      const registry = setup.registry();
      return listPage(
        'tools',
        describeTools(registry, titleIn),
        request.params?.cursor,
        (end) => toolsVersion(registry, end),
        (start) => toolsPageEnd(registry, start),
      );
    });

    const modern = context.era === 'modern';
    const answer = (params: ToolsCallParams, ctx: ServerContext) => {
      if (modern) direct.accepted(ctx.mcpReq.envelope);
      const running = answerToolsCall(params, ctx, setup, askSettings, {
        modern,
        ...(modern
          ? {}
          : { capabilities: server.getClientCapabilities() ?? {}, roots: () => clientRoots(ctx) }),
        project: (result, outputSchema) => server.projectCallToolResult(result, outputSchema),
      });
      // A session's transport holds the call's slot until here, cancelled or not (call-settled.ts).
      if (!modern) {
        const settled = () => callSettled(server, ctx.mcpReq.id);
        running.then(settled, settled);
      }
      return running;
    };
    server.setRequestHandler('tools/call', (request, ctx) => answer(request.params, ctx));
    // A plain call skips the SDK's wrapper around that handler, whose zod checks re-read the request
    // and the result the bridge itself built; anything else (and every task) still goes through it.
    interceptToolsCall(server, (request, ctx) => {
      const params = plainToolsCallParams(request.params);
      return params ? answer(params, ctx) : undefined;
    });

    registerCatalog(server, context);

    tasks.install(server, context);
    return server;
  };
  // One stdio lane per connection, made by the stdio transport, which it answers through.
  const stdioLane = (output: StdioOutput) => createStdioLane(setup, askSettings, output, direct);
  // One session lane per initialize-era HTTP session, made once the session has its id.
  const sessionLane = (session: { server: Server; events: LaneEvents; sessionId: string }) =>
    createSessionLane(setup, askSettings, session);
  const sessionClosed = (sessionId: string) => tasks.sessionClosed(sessionId);
  return Object.assign(factory, { taskFeed: tasks.feed, direct, stdioLane, sessionLane, sessionClosed });
}

// Resources always (the store's outputs); prompts and completions only when there is something to serve.
function catalogHandlers(
  setup: ServerSetup,
  ask: AskSettings,
): (server: Server, context: McpRequestContext) => void {
  const prompts = setup.catalog?.prompts ?? [];
  const resources = setup.catalog?.resources ?? [];
  const resourceTemplates = setup.catalog?.resourceTemplates ?? [];
  const { shutdown } = setup;
  const resourceHandling = resourceHandlers({
    store: setup.resources,
    resources,
    resourceTemplates,
    shutdown,
  });
  const registerPrompts = prompts.length > 0 ? promptHandlers(prompts, shutdown, ask) : undefined;
  const completes = prompts.length > 0 || resourceTemplates.length > 0;
  // Only catalog resources can change, so only they make subscriptions worth declaring.
  const subscriptions =
    resources.length > 0 || resourceTemplates.length > 0 ? setup.subscriptions : undefined;
  return (server, context) => {
    resourceHandling.register(server);
    subscriptions?.install(server, context, resourceHandling.exists);
    registerPrompts?.(server, context.era === 'modern');
    if (completes) registerCompletionHandler(server, { prompts, resourceTemplates, shutdown });
  };
}
