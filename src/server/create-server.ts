import {
  type CallToolResult,
  type McpRequestContext,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerOptions,
  type Tool,
} from '@modelcontextprotocol/server';
import type { Catalog } from '../catalog.js';
import type { Logger } from '../logger.js';
import type { RegisteredTool, ToolRegistry } from '../registry.js';
import type { ResourceStore } from '../resource-store.js';
import { createTaskSupport } from '../tasks/install-tasks.js';
import type { TaskOptions } from '../tasks/task-runner.js';
import { textResult } from '../tool.js';
import { createCallContext } from './call-context.js';
import { trackClientRoots } from './client-roots.js';
import { promptHandlers, registerCompletionHandler } from './handle-prompts.js';
import { resourceHandlers } from './handle-resources.js';
import { listPage } from './paginate.js';
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
  /** Lets later features (tasks, auth scopes) add handlers; called on every new instance. */
  extend?: (server: Server, context: McpRequestContext) => void;
  /** Lifetime bounds, polling pace and store of tasks (tools with `taskSupport`). */
  tasks?: TaskOptions;
}

/**
 * Returns the SDK server factory: one low-level `Server` per stdio connection, initialize-era
 * HTTP session, or 2026-07-28 HTTP request, all answering from the same registry and store.
 */
export function createServerFactory(setup: ServerSetup): (context: McpRequestContext) => Server {
  const listCache = new WeakMap<ToolRegistry, Tool[]>();
  const describeTools = (registry: ToolRegistry) => {
    let tools = listCache.get(registry);
    if (!tools) {
      tools = registry.tools.map(describeTool);
      listCache.set(registry, tools);
    }
    return tools;
  };

  const registerCatalog = catalogHandlers(setup);

  // One task layer for every instance, so a task created on one request is found by the next.
  const tasks = createTaskSupport(setup, setup.tasks);

  // The same for every instance; a 2026-07-28 HTTP server builds one instance per request.
  const serverOptions = {
    capabilities: { tools: { listChanged: true }, resources: {}, logging: {} },
    ...(setup.instructions === undefined ? {} : { instructions: setup.instructions }),
    cacheHints: {
      'tools/list': { ttlMs: 60_000, cacheScope: 'public' },
      'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'public' },
      'resources/list': { ttlMs: 0, cacheScope: 'private' },
      'resources/read': { ttlMs: 0, cacheScope: 'private' },
      'prompts/list': { ttlMs: 3_600_000, cacheScope: 'public' },
    },
  } satisfies ServerOptions;

  return (context) => {
    const server = new Server(setup.info, serverOptions);

    // The 2026-07-28 era has no server-to-client requests, so only the initialize era has roots.
    const clientRoots = context.era === 'modern' ? async () => undefined : trackClientRoots(server);

    server.setRequestHandler('tools/list', (request) =>
      listPage('tools', describeTools(setup.registry()), request.params?.cursor),
    );

    server.setRequestHandler('tools/call', async (request, ctx) => {
      const registry = setup.registry();
      const tool = registry.get(request.params.name);
      if (!tool) {
        // A tool refused by policy is the model's to hear about, with what it may use instead.
        const reason = registry.explainMissing(request.params.name);
        if (reason) return textResult(reason, true) as CallToolResult;
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: "${request.params.name}"`);
      }
      const call = createCallContext(ctx, { ...setup, toolName: tool.name, roots: () => clientRoots(ctx) });
      const result = await registry.call(tool, request.params.arguments ?? {}, call.context);
      await call.settled();
      return server.projectCallToolResult(result as CallToolResult, tool.definition.outputSchema);
    });

    registerCatalog(server, context);

    tasks.install(server, context);
    setup.extend?.(server, context);
    return server;
  };
}

// Resources always (the store's outputs); prompts and completions only when there is something to serve.
function catalogHandlers(setup: ServerSetup): (server: Server, context: McpRequestContext) => void {
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
  const registerPrompts = prompts.length > 0 ? promptHandlers(prompts, shutdown) : undefined;
  const completes = prompts.length > 0 || resourceTemplates.length > 0;
  // Only catalog resources can change, so only they make subscriptions worth declaring.
  const subscriptions =
    resources.length > 0 || resourceTemplates.length > 0 ? setup.subscriptions : undefined;
  return (server, context) => {
    resourceHandling.register(server);
    subscriptions?.install(server, context, resourceHandling.exists);
    registerPrompts?.(server);
    if (completes) registerCompletionHandler(server, { prompts, resourceTemplates, shutdown });
  };
}

function describeTool(tool: RegisteredTool): Tool {
  const { definition } = tool;
  const described: Tool = {
    name: tool.name,
    description: definition.description,
    inputSchema: definition.inputSchema as Tool['inputSchema'],
    annotations: { ...definition.annotations, ...(definition.title ? { title: definition.title } : {}) },
  };
  if (definition.title) described.title = definition.title;
  if (definition.outputSchema) described.outputSchema = definition.outputSchema as Tool['outputSchema'];
  if (definition.taskSupport && definition.taskSupport !== 'forbidden') {
    described.execution = { taskSupport: definition.taskSupport };
  }
  return described;
}
