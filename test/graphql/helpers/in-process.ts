import {
  MemoryResourceStore,
  type Source,
  silentLogger,
  type ToolContext,
  ToolRegistry,
  type ToolResult,
} from '../../../src/index.js';

/** What a loaded source offers in-process: the registry plus a way to call a tool as a client would. */
export interface LoadedTools {
  registry: ToolRegistry;
  warnings: string[];
  resources: MemoryResourceStore;
  /** The source's `watchedFiles()` after loading. */
  watchedFiles: string[];
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
}

/**
 * Loads `source` through the core's registry (names made unique, arguments validated against the
 * input schema) and calls tools the way the server does, without a transport.
 */
export async function loadTools(source: Source): Promise<LoadedTools> {
  const warnings: string[] = [];
  const log = {
    ...silentLogger,
    warn: (message: string, data?: unknown) =>
      void warnings.push(`${message} ${data ? JSON.stringify(data) : ''}`),
  };
  const registry = await ToolRegistry.load([source], { log, signal: new AbortController().signal });
  const resources = new MemoryResourceStore();
  return {
    registry,
    warnings,
    resources,
    watchedFiles: source.watchedFiles?.() ?? [],
    async call(name, args = {}) {
      const tool = registry.get(name);
      if (!tool) throw new Error(`no tool ${name}; have ${registry.tools.map((t) => t.name).join(', ')}`);
      const context: ToolContext = {
        signal: new AbortController().signal,
        progress() {},
        log: silentLogger,
        resources,
        caller: 'test',
      };
      return registry.call(tool, args, context);
    },
  };
}

/** The text of a result's first content block. */
export function firstText(result: ToolResult): string {
  const block = result.content[0];
  return block && block.type === 'text' ? block.text : '';
}

/** The value at a dotted path (`a.b.0.c`) inside a JSON value, `undefined` when absent. */
export function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
