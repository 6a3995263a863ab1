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
  /**
   * What the config sets per tool for this source (include and exclude, overrides, confirmation,
   * asking for missing arguments); absent when it sets nothing. The core applies it to the tools
   * `load` returns. A source that also runs tools it does not list, through a tool with `runs`
   * (OpenAPI dynamic mode's `call_operation`), must apply it to those itself, or the config would
   * not hold for them.
   */
  policy?: ToolPolicy;
}

/**
 * The config's settings for one source's tools, keyed by the names the adapter gives them.
 *
 * @example
 * const served = tools.filter((tool) => policy.serves(tool.name)); // before `load` returns
 * const definition = policy.apply(served[0].definition()); // when it runs, once per tool
 */
export interface ToolPolicy {
  /**
   * Whether the config serves the tool the adapter names `name` (its `include` and `exclude`).
   * A source asks about every tool it runs without listing before `load` returns: those names
   * count as the source's own (a per-tool setting naming one is not warned about).
   */
  serves(name: string): boolean;
  /**
   * The tool as the config serves it: renamed (namespace, `name`), with the overridden members,
   * and asking the user first where `confirm` or `askMissing` say so. Keep the result: each call
   * returns a new definition, and a definition's argument validator is compiled once.
   */
  apply(tool: ToolDefinition): ToolDefinition;
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
