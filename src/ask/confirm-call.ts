import { describeError } from '../errors.js';
import { escapeControl, jsonForTerminal } from '../escape-control.js';
import { copyDefinition } from '../listed-json.js';
import { type ToolAnnotations, type ToolContext, type ToolDefinition, textResult } from '../tool.js';

/** When a tool asks the user before it runs. */
export type ConfirmMode = 'never' | 'destructive' | 'always';
/** What happens when a tool needs confirmation and the client cannot ask the user. */
export type ConfirmFallback = 'refuse' | 'run';

export const CONFIRM_MODES: readonly ConfirmMode[] = ['never', 'destructive', 'always'];
export const CONFIRM_FALLBACKS: readonly ConfirmFallback[] = ['refuse', 'run'];

/** Whether a tool with `annotations` needs confirmation under `mode`. */
export function needsConfirmation(mode: ConfirmMode, annotations: ToolAnnotations): boolean {
  if (mode === 'always') return true;
  return mode === 'destructive' && !annotations.readOnlyHint && annotations.destructiveHint;
}

// The key of the confirmation question across 2026-07-28 rounds, apart from any the tool asks.
const CONFIRM_KEY = 'bridge_confirm';

/**
 * Wraps `tool` so that each call first asks the user (form elicitation) to confirm, showing the
 * tool, its annotations, the exact arguments and, when the adapter can say it, the exact action
 * (`preview`: the argv of a command, the method and URL of a request). A decline or cancel is an
 * `isError` result and nothing runs. A client that cannot ask the user gets a refusal saying why,
 * or, with `fallback: run`, the call runs unconfirmed (and the log says so).
 */
export function withConfirmation(
  tool: ToolDefinition,
  mode: ConfirmMode,
  fallback: ConfirmFallback,
): ToolDefinition {
  // `never` first: the annotations of a lazily read tool are not read for nothing.
  if (mode === 'never' || !needsConfirmation(mode, tool.annotations)) return tool;
  return copyDefinition(tool, {
    async invoke(args, context) {
      const ask = context.ask;
      if (!ask?.can('form')) {
        if (fallback === 'run') {
          context.log.warn(
            `${tool.name}: runs without confirmation: the client cannot ask the user (--confirm-fallback run)`,
          );
          return tool.invoke(args, context);
        }
        return textResult(
          `${tool.name} was not run: it needs the user's confirmation first (confirm: ${mode}), and this client cannot ask the user (it did not declare the elicitation capability, or the call runs as a task). Use a client that supports elicitation, or run it unconfirmed with --confirm-fallback run (confirmFallback: run in a config file), or confirm: never for this tool.`,
          true,
        );
      }
      let action: string | undefined;
      try {
        action = await tool.preview?.(args, context);
      } catch (error) {
        // Arguments the adapter cannot turn into an action fail the same way when run: say so now.
        return textResult(`${tool.name}: ${describeError(error)}`, true);
      }
      const answer = await ask.elicit({
        key: CONFIRM_KEY,
        gate: true,
        message: confirmationMessage(tool, args, action),
        requestedSchema: {
          type: 'object',
          properties: {
            confirm: {
              type: 'boolean',
              title: `Run ${tool.name}`,
              description: 'Run it exactly as shown above.',
            },
          },
          required: ['confirm'],
        },
      });
      if (answer.action !== 'accept' || answer.content.confirm !== true) {
        const how =
          answer.action === 'accept'
            ? 'did not confirm'
            : answer.action === 'decline'
              ? 'declined'
              : 'cancelled';
        return textResult(`The user ${how} the call to ${tool.name}; nothing was run.`, true);
      }
      // The user may take minutes to answer: what the action resolves to (a link's target, a
      // directory) can change meanwhile. What the user confirmed is what runs, or nothing does.
      const changed = await changedAction(tool, args, context, action);
      if (changed) return textResult(changed, true);
      return tool.invoke(args, context);
    },
  });
}

// Why the action the call would take now is not the one the user confirmed, or undefined when it is.
async function changedAction(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  context: ToolContext,
  confirmed: string | undefined,
): Promise<string | undefined> {
  if (confirmed === undefined) return undefined;
  let now: string;
  try {
    now = (await tool.preview?.(args, context)) ?? '';
  } catch (error) {
    now = `(it would fail: ${describeError(error)})`;
  }
  if (now === confirmed) return undefined;
  return `${tool.name} was not run: what it would run changed while the user was asked (confirmed: ${confirmed}; now: ${now}). Call it again to confirm what it runs now.`;
}

function confirmationMessage(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  action: string | undefined,
): string {
  const { annotations } = tool;
  const hints = [
    annotations.readOnlyHint ? 'read-only' : 'writes',
    annotations.destructiveHint && !annotations.readOnlyHint ? 'destructive' : undefined,
    annotations.idempotentHint ? 'idempotent' : 'not idempotent',
    annotations.openWorldHint ? 'reaches outside this machine' : 'local',
  ].filter(Boolean);
  // The arguments are the model's, the action is built from them, a title may come from a spec:
  // none may start a line of its own (a forged "(in DIR)"), send escape sequences, or reorder
  // what follows (U+202E). The lines of this message are the bridge's alone.
  const lines = [`Allow the tool "${tool.name}" to run?`];
  if (tool.title && tool.title !== tool.name) lines.push(escapeControl(tool.title));
  lines.push(`Hints: ${hints.join(', ')}`);
  if (action) lines.push(`It will run: ${escapeControl(action)}`);
  lines.push(`Arguments: ${jsonForTerminal(args)}`);
  return lines.join('\n');
}
