import { askMissingArguments } from './ask/ask-missing.js';
import { AskInterrupt, type ClientAsk } from './ask/client-ask.js';
import { countOf } from './count-of.js';
import { BridgeError, describeError, toBridgeError } from './errors.js';
import type { LoadContext, Source } from './source.js';
import { type ToolContext, type ToolDefinition, type ToolResult, textResult } from './tool.js';
import { sanitizeToolName, uniqueToolNames } from './tool-names.js';
import { type ArgumentValidator, compileValidator, formatViolations } from './validate-arguments.js';

/** A tool under its final, unique, valid name. */
export interface RegisteredTool {
  /** The name clients see and call. */
  readonly name: string;
  /** The adapter's definition (its `name` is the one the adapter asked for). */
  readonly definition: ToolDefinition;
  /** The label of the source it came from. */
  readonly source: string;
}

/** The tools of one source, as loaded. */
export interface SourceTools {
  source: string;
  tools: readonly ToolDefinition[];
}

/**
 * The merged, immutable set of tools the server offers. Names are made valid and unique here
 * (adapter order decides who keeps the plain name); listing order is by name, so it is the same on
 * every run and for every client. Arguments are validated lazily, one compiled validator per tool (see `invokeTool`).
 */
export class ToolRegistry {
  readonly tools: readonly RegisteredTool[];
  readonly #byName = new Map<string, RegisteredTool>();
  readonly #explainers: Array<(toolName: string) => string | undefined> = [];

  constructor(groups: readonly SourceTools[], sources: readonly Source[] = []) {
    for (const source of sources) {
      if (source.explainMissing) this.#explainers.push((name) => source.explainMissing?.(name));
    }
    const flat = groups.flatMap((group) =>
      group.tools.map((definition) => ({ definition, source: group.source })),
    );
    const names = uniqueToolNames(
      flat.map((entry) => entry.definition.name),
      undefined,
      flat.map((entry) => entry.definition.nameChosen === true),
    );
    const tools = flat.map((entry, index) => ({ ...entry, name: names[index] as string }));
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const tool of tools) this.#byName.set(tool.name, tool);
    this.tools = tools;
  }

  /** Loads every source (in parallel) and merges their tools. Fails when any source fails. */
  static async load(sources: readonly Source[], context: LoadContext): Promise<ToolRegistry> {
    const groups = await Promise.all(
      sources.map(async (source) => {
        try {
          return { source: source.label, tools: await source.load(context) };
        } catch (error) {
          const failure = toBridgeError(error, 'load_failed');
          throw new BridgeError(failure.code, `${source.label}: ${describeError(failure)}`, { cause: error });
        }
      }),
    );
    return new ToolRegistry(groups, sources);
  }

  /** Why `name` is not served, when one of the sources can say (see `Source.explainMissing`). */
  explainMissing(name: string): string | undefined {
    for (const explain of this.#explainers) {
      const reason = explain(name);
      if (reason) return reason;
    }
    return undefined;
  }

  get(name: string): RegisteredTool | undefined {
    return this.#byName.get(name);
  }

  /**
   * Validates `args` and runs the tool. Throws only an `AskInterrupt` (a question to the client
   * that ends this run), or a tool's unexpected failure where `throwInternalFailures` asked for it:
   * invalid arguments, a throwing invoke and a cancelled call all come back as `isError` results
   * whose text says what happened.
   */
  call(tool: RegisteredTool, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
    return invokeTool(tool.definition, args, context, tool.name);
  }

  /**
   * When the tool asks for missing arguments (`askMissing`) and `args` lacks required ones, asks
   * the user for them: the completed arguments, a refusal text, or `undefined` when there is
   * nothing to ask. In 2026-07-28 the question may end the run with an input_required round.
   * `beforeChange` runs before the checks correct `args` in place (see `beforeArgumentsChange`).
   */
  async askMissing(
    tool: RegisteredTool,
    args: Record<string, unknown>,
    ask: ClientAsk,
    context: Pick<ToolContext, 'log'>,
    beforeChange?: () => void,
  ): Promise<{ args: Record<string, unknown> } | { refused: string } | undefined> {
    if (!tool.definition.askMissing) return undefined;
    const violations = validatorOf(tool.definition, tool.name, context)?.(args, beforeChange) ?? [];
    if (violations.length === 0) return undefined;
    return askMissingArguments(tool.definition, tool.name, args, violations, ask);
  }
}

/** One compiled validator per definition (`null`: the schema does not compile), made on first call. */
const validators = new WeakMap<ToolDefinition, ArgumentValidator | null>();

/** How the calls made with one context are run, where the caller asked for more than the default. */
interface CallOptions {
  /** Runs before the checks correct the call's arguments in place (see `beforeArgumentsChange`). */
  beforeChange?: () => void;
  /** A tool's unexpected failure is thrown rather than answered (see `throwInternalFailures`). */
  throwInternal?: boolean;
}

const callOptions = new WeakMap<ToolContext, CallOptions>();

function setCallOption<K extends keyof CallOptions>(
  context: ToolContext,
  key: K,
  value: CallOptions[K],
): void {
  const options = callOptions.get(context);
  if (options) options[key] = value;
  else callOptions.set(context, { [key]: value });
}

/**
 * Makes the calls with `context` throw a tool's unexpected failure (a `BridgeError` coded
 * `internal`: a bug, not an upstream's or a caller's failure) instead of answering it as an
 * `isError` result: a task's calls, which then end `failed` with the JSON-RPC error, the status
 * SEP-2663 keeps for protocol-level failures (a tool's own error result stays `completed`).
 */
export function throwInternalFailures(context: ToolContext): void {
  setCallOption(context, 'throwInternal', true);
}

/**
 * Runs `hook` before the checks of the call whose context is `context` correct its arguments in
 * place (see `coerceLosslessly`): for what must see them as the client sent them (a 2026-07-28
 * round's digest), without paying for it on every call that needs no correction.
 */
export function beforeArgumentsChange(context: ToolContext, hook: () => void): void {
  setCallOption(context, 'beforeChange', hook);
}

/**
 * The core's validating invoke, for a definition that is not in the registry (e.g. an operation
 * that a dynamic-mode meta-tool runs): checks `args` against its input schema (asking for missing
 * ones when it says so), runs it, and turns failures into `isError` results that name `name`.
 * Throws only an `AskInterrupt`.
 */
export async function invokeTool(
  definition: ToolDefinition,
  args: Record<string, unknown>,
  context: ToolContext,
  name = definition.name,
): Promise<ToolResult> {
  const validate = validatorOf(definition, name, context);
  const beforeChange = callOptions.get(context)?.beforeChange;
  let violations = validate?.(args, beforeChange) ?? [];
  if (violations.length > 0 && definition.askMissing && context.ask) {
    // Asked before anything runs; in 2026-07-28 this may end the run with an input_required round.
    const asked = await askMissingArguments(definition, name, args, violations, context.ask);
    if (asked && 'refused' in asked) return textResult(asked.refused, true);
    if (asked) {
      args = asked.args;
      violations = validate?.(args, beforeChange) ?? [];
    }
  }
  if (violations.length > 0) {
    return textResult(formatViolations(name, violations), true);
  }
  try {
    return await definition.invoke(args, context);
  } catch (error) {
    // A question to the client ends the run here; the server answers it (see `ClientAsk`).
    if (error instanceof AskInterrupt) throw error;
    const failure = toBridgeError(error);
    if (failure.code === 'internal' && callOptions.get(context)?.throwInternal) throw failure;
    if (failure.code === 'internal') context.log.error(`tool ${name} failed`, error);
    const text = failure.code === 'aborted' ? 'The call was cancelled.' : describeError(failure);
    return textResult(`${name}: ${text}`, true);
  }
}

function validatorOf(
  definition: ToolDefinition,
  name: string,
  context: Pick<ToolContext, 'log'>,
): ArgumentValidator | null {
  let validator = validators.get(definition);
  if (validator === undefined) {
    try {
      validator = compileValidator(definition.inputSchema);
    } catch (error) {
      // A schema Ajv cannot compile should not make the tool unusable: the upstream still checks.
      context.log.warn(`input schema of tool ${name} does not compile; arguments are not checked`, {
        reason: describeError(error),
      });
      validator = null;
    }
    validators.set(definition, validator);
  }
  return validator;
}

/**
 * The warning about the tools served under another name than their own because another tool has
 * it (whatever names them, a client's approvals or `--tool-scope`, means the name as served), or
 * undefined when there are none.
 */
export function renamedWarning(registry: ToolRegistry): string | undefined {
  const renamed = registry.tools.filter((tool) => tool.name !== sanitizeToolName(tool.definition.name));
  if (renamed.length === 0) return undefined;
  const named = renamed
    .slice(0, 10)
    .map((tool) => `"${tool.definition.name}" of ${tool.source} as "${tool.name}"`);
  if (renamed.length > 10) named.push(`${renamed.length - 10} more`);
  return `${countOf(renamed.length, 'tool')} served under another name, theirs being taken by another tool (give the sources namespaces): ${named.join(', ')}`;
}
