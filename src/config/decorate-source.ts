import { type ConfirmFallback, type ConfirmMode, withConfirmation } from '../ask/confirm-call.js';
import { BridgeError } from '../errors.js';
import { copyDefinition } from '../listed-json.js';
import type { LoadContext, Source, ToolPolicy } from '../source.js';
import type { ToolContext, ToolDefinition } from '../tool.js';
import type { ToolOverride } from './config-schema.js';

/** What a config entry asks of a source's tools. */
export interface SourceDecoration {
  /** Prefix joined to each tool name with `_`. */
  namespace?: string;
  /** Globs (`*`, `?`) over the adapter-given names; when present, only matches are served. */
  include?: string[];
  /** Globs over the adapter-given names; matches are not served. */
  exclude?: string[];
  /** Per-tool overrides keyed by the adapter-given name. */
  tools?: Record<string, ToolOverride>;
  /** Which calls ask the user first (a tool's own `confirm` wins), and what if the client cannot ask. */
  confirm?: ConfirmMode;
  confirmFallback?: ConfirmFallback;
  /** Ask the user for missing required arguments (a tool's own `askMissing` wins). */
  askMissing?: boolean;
}

/**
 * Wraps a source so that its tools are filtered, renamed and overridden as the config says.
 * Generic: it only sees `ToolDefinition`s, never anything adapter-specific. The same policy goes
 * to the source (`LoadContext.policy`) for the tools it runs without listing them.
 */
export function decorateSource(source: Source, decoration: SourceDecoration): Source {
  const { namespace, tools: overrides = {} } = decoration;
  const confirm = decoration.confirm ?? 'never';
  const fallback = decoration.confirmFallback ?? 'refuse';
  const asking =
    confirm !== 'never' ||
    decoration.askMissing === true ||
    Object.values(overrides).some((o) => (o.confirm && o.confirm !== 'never') || o.askMissing);
  const include = decoration.include?.map(globToRegExp);
  const exclude = decoration.exclude?.map(globToRegExp) ?? [];
  if (!namespace && !include && exclude.length === 0 && Object.keys(overrides).length === 0 && !asking) {
    return source;
  }

  const label = namespace ? `${source.label} (${namespace})` : source.label;
  const decorated: Source = {
    label,
    async load(context: LoadContext) {
      // Every name the source has: those it lists, and those it runs unlisted (it asks `serves`).
      const names = new Set<string>();
      const policy: ToolPolicy = {
        serves(name) {
          names.add(name);
          return (
            (!include || include.some((pattern) => pattern.test(name))) &&
            !exclude.some((pattern) => pattern.test(name))
          );
        },
        apply(tool) {
          const override = overrides[tool.name];
          const applied = applyOverride(tool, namespace, override);
          // A tool that runs others asks nothing itself: each tool it runs asks as configured (an
          // answer naming the tool to run would pass by the scopes checked for the request).
          if (tool.runs) return applied;
          const askMissing = override?.askMissing ?? decoration.askMissing;
          if (askMissing !== undefined) applied.askMissing = askMissing;
          // Outermost, after the timeout: the user's time to answer does not count against the tool.
          return withConfirmation(applied, override?.confirm ?? confirm, fallback);
        },
      };
      const loaded = await source.load({ ...context, policy });
      const kept = loaded.filter((tool) => policy.serves(tool.name));
      for (const name of Object.keys(overrides)) {
        if (!names.has(name))
          context.log.warn(`${label}: tools.${name} overrides a tool the source does not have`);
      }
      if (include && kept.length === 0) {
        context.log.warn(`${label}: include ${JSON.stringify(decoration.include)} matches none of its tools`);
      }
      return kept.map((tool) => policy.apply(tool));
    },
  };
  if (source.explainMissing) {
    decorated.explainMissing = (name) => {
      if (namespace && !name.startsWith(`${namespace}_`)) return undefined;
      return source.explainMissing?.(namespace ? name.slice(namespace.length + 1) : name);
    };
  }
  if (source.watchedFiles) decorated.watchedFiles = () => source.watchedFiles?.() ?? [];
  if (source.close) decorated.close = () => source.close?.() ?? Promise.resolve();
  return decorated;
}

function applyOverride(
  tool: ToolDefinition,
  namespace: string | undefined,
  override: ToolOverride | undefined,
) {
  const name = override?.name ?? (namespace ? `${namespace}_${tool.name}` : tool.name);
  const changes: Partial<ToolDefinition> = { name };
  if (override?.name !== undefined) changes.nameChosen = true;
  if (override?.title !== undefined) changes.title = override.title;
  if (override?.description !== undefined) changes.description = override.description;
  if (override?.annotations) changes.annotations = { ...tool.annotations, ...override.annotations };
  if (override?.taskSupport !== undefined) changes.taskSupport = override.taskSupport;
  if (override?.timeoutMs !== undefined) changes.invoke = withTimeout(tool, name, override.timeoutMs);
  // A copy that reads the tool's members only when they are used, as the tool itself does.
  return copyDefinition(tool, changes);
}

// The tool sees an aborted signal at the deadline, and the call returns then even if the tool
// ignores the signal: a client must not wait on a tool that does not stop.
function withTimeout(tool: ToolDefinition, name: string, timeoutMs: number): ToolDefinition['invoke'] {
  return async (args, context: ToolContext) => {
    const controller = new AbortController();
    const forward = () => controller.abort(context.signal.reason);
    context.signal.addEventListener('abort', forward, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const error = new BridgeError(
          'timeout',
          `timed out after ${timeoutMs} ms (the config's timeoutMs for ${name}); try narrower arguments`,
        );
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    try {
      return await Promise.race([tool.invoke(args, { ...context, signal: controller.signal }), deadline]);
    } finally {
      clearTimeout(timer);
      context.signal.removeEventListener('abort', forward);
    }
  };
}

/** `list_*` → /^list_.*$/; only `*` and `?` are special. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}
