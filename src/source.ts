import type { Logger } from './logger.js';
import type { ToolDefinition } from './tool.js';

/**
 * What the core gives a source while it loads.
 */
export interface LoadContext {
  /** For warnings such as "operation X skipped: …". Never stdout. */
  log: Logger;
  /** Aborted when the server shuts down during loading. */
  signal: AbortSignal;
}

/**
 * A source of tools: the contract every adapter implements (OpenAPI, GraphQL, CLI).
 *
 * Lifecycle: the core calls `load` once before serving, and again on reload; `close` once at
 * shutdown. A source never talks MCP: it yields tool definitions, and each tool's `invoke` does the
 * work. Adapters import only the core's public surface (`src/index.ts`).
 */
export interface Source {
  /** A short label for logs and errors, e.g. `openapi petstore.yaml` or `cli git`. */
  readonly label: string;
  /**
   * Reads whatever the source is built from (a spec, a schema, a binary's help) and returns its
   * tools. Throws a `BridgeError` with code `load_failed` or `invalid_input` naming the file or
   * endpoint and the problem when nothing can be served; skips (with a warning) what cannot be
   * converted and serves the rest.
   */
  load(context: LoadContext): Promise<ToolDefinition[]>;
  /**
   * Says why a tool this source does not serve is missing, when the source knows (a subcommand
   * refused by policy, with what is allowed); `undefined` otherwise. The client then gets an
   * `isError` result with the sentence instead of an unknown-tool error. Optional.
   */
  explainMissing?(toolName: string): string | undefined;
  /** Paths of the local files the tools were built from, for hot reload. Optional. */
  watchedFiles?(): string[];
  /** Releases connections, caches and child processes. Optional. */
  close?(): Promise<void>;
}
