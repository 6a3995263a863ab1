import { fileURLToPath } from 'node:url';
import { createOpenApiSource, type OpenApiOptions } from '../../../adapters/openapi/index.js';
import { MemoryResourceStore, silentLogger, type ToolContext, ToolRegistry } from '../../../src/index.js';

/** The fixtures directory. */
export const FIXTURES = fileURLToPath(new URL('../../../fixtures/openapi/', import.meta.url));

/** Tools of one source behind the core's registry (so arguments are validated as in the server). */
export interface LoadedTools {
  registry: ToolRegistry;
  store: MemoryResourceStore;
  warnings: string[];
  close(): Promise<void>;
  call(
    name: string,
    args?: Record<string, unknown>,
    signal?: AbortSignal,
    authorization?: string,
  ): ReturnType<ToolRegistry['call']>;
}

/** Loads `options` (spec relative to the fixtures) in-process. */
export async function loadTools(
  options: OpenApiOptions,
  network: Parameters<typeof createOpenApiSource>[2] = {},
): Promise<LoadedTools> {
  const source = createOpenApiSource(options, FIXTURES, network);
  const warnings: string[] = [];
  const log = { ...silentLogger, warn: (message: string) => warnings.push(message) };
  const registry = await ToolRegistry.load([source], { log, signal: new AbortController().signal });
  const store = new MemoryResourceStore();
  return {
    registry,
    store,
    warnings,
    close: async () => source.close?.(),
    call(name, args = {}, signal = new AbortController().signal, authorization = undefined) {
      const tool = registry.get(name);
      if (!tool) throw new Error(`no tool ${name}; have ${registry.tools.map((t) => t.name).join(', ')}`);
      const context: ToolContext = {
        signal,
        progress: () => {},
        log: silentLogger,
        resources: store,
        caller: 'test',
        ...(authorization ? { authorization } : {}),
      };
      return registry.call(tool, args, context);
    },
  };
}

/** The first text block of a result. */
export function firstText(result: { content: Array<{ type: string }> }): string {
  const block = result.content.find((c) => c.type === 'text') as { text?: string } | undefined;
  return block?.text ?? '';
}

/** The parsed JSON echo of a call to the echo upstream. */
export function echoOf(result: { content: Array<{ type: string }> }): {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
} {
  return JSON.parse(firstText(result));
}

/** A schema or result navigated freely in assertions. */
// biome-ignore lint/suspicious/noExplicitAny: assertions walk schemas whose shape the test itself pins down
export type Loose = Record<string, any>;
