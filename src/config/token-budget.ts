import { countOf } from '../count-of.js';
import type { Logger } from '../logger.js';
import type { RegisteredTool, ToolRegistry } from '../registry.js';
import { listEntryParts } from '../server/list-entry.js';

/**
 * Past this many tokens one tool's `tools/list` entry is a problem of its own: a Kubernetes
 * StatefulSet operation alone is ~31k tokens, more than many clients accept for a whole answer.
 */
export const TOOL_TOKEN_BUDGET = 10_000;
/** Past this the whole list crowds the model's context (GitHub's repos + issues tags: ~156k). */
export const LIST_TOKEN_BUDGET = 50_000;

/** What narrows a source of each kind, by the first word of its label (`openapi spec.yaml`). */
const NARROWING: Record<string, string> = {
  openapi:
    'serve it with --tools dynamic (four meta-tools that load schemas on demand) or leave operations out with --include/--exclude',
  graphql:
    'offer only the operations you write with --operations DIR, leave mutations out with --mutations none, or select fewer fields with --depth/--breadth',
  cli: 'offer only the subcommands you name with --allow, or leave some out with --deny',
};

/**
 * What to do about a tool or list over budget, for the sources it came from (their labels): the
 * flags of their kinds, and, in a config file, the same settings or any source's include/exclude.
 */
export function narrowingAdvice(sources: Iterable<string>): string {
  const kinds = new Set([...sources].map((source) => source.split(' ')[0] ?? ''));
  const advice = [...kinds].flatMap((kind) => (NARROWING[kind] ? [NARROWING[kind]] : []));
  return `${advice.join('; ') || 'leave tools out'} (in a config: the same settings, or the source's include/exclude)`;
}

/** About four characters of JSON per token, the usual rule of thumb for English and JSON. */
export function estimateTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}

/**
 * The tokens of a tool's `tools/list` entry, from its bytes as the list sends them: a tool listed
 * from kept text (the OpenAPI conversion cache) is measured without parsing its schemas. The one
 * measure of `bridge inspect` and of the warnings a server logs.
 */
export function entryTokens(tool: RegisteredTool): number {
  return Math.ceil(listEntryParts(tool).reduce((sum, part) => sum + part.length, 0) / 4);
}

/** The warning for one tool (of `source`) whose entry is over `TOOL_TOKEN_BUDGET`, or `undefined`. */
export function toolBudgetWarning(tokens: number, source: string): string | undefined {
  if (tokens <= TOOL_TOKEN_BUDGET) return undefined;
  return `about ${tokens.toLocaleString('en-US')} tokens in tools/list, above the ${TOOL_TOKEN_BUDGET.toLocaleString('en-US')} a tool should cost: ${narrowingAdvice([source])}`;
}

/** The warning for a whole list (of `tools` from their sources) over `LIST_TOKEN_BUDGET`, or `undefined`. */
export function listBudgetWarning(tools: readonly { source: string }[], tokens: number): string | undefined {
  if (tokens <= LIST_TOKEN_BUDGET) return undefined;
  const sources = tools.map((tool) => tool.source);
  return `${countOf(tools.length, 'tool')} cost about ${tokens.toLocaleString('en-US')} tokens in tools/list, above ${LIST_TOKEN_BUDGET.toLocaleString('en-US')}: ${narrowingAdvice(sources)}`;
}

/**
 * Past start-up: a client that connects with the bridge sends `initialize` and `tools/list` at once,
 * and on one thread a measurement running first delays both (GitHub's 1,223 tools: ~30 ms).
 */
const WARN_AFTER_MS = 1_000;

/**
 * Logs the tools over budget, by name, a second after the server is up: measuring means serializing
 * every schema, so it waits until the first `tools/list` has been answered rather than delay it.
 * Measured as `entryTokens`.
 */
export function warnAboutLargeTools(registry: ToolRegistry, log: Logger): void {
  setTimeout(() => {
    let total = 0;
    for (const tool of registry.tools) {
      const tokens = entryTokens(tool);
      total += tokens;
      const warning = toolBudgetWarning(tokens, tool.source);
      if (warning) log.warn(`tool ${tool.name} is ${warning}`);
    }
    const warning = listBudgetWarning(registry.tools, total);
    if (warning) log.warn(warning);
  }, WARN_AFTER_MS).unref();
}
