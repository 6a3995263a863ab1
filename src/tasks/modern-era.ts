import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AskCapabilities } from '../ask/ask-params.js';
import { type AskSettings, prepareAsking } from '../ask/call-asking.js';
import { InvalidAnswerError } from '../ask/check-answer.js';
import { callerOf } from '../caller.js';
import type { Logger } from '../logger.js';
import { quote } from '../quote-input.js';
import type { ToolRegistry } from '../registry.js';
import { textResult } from '../tool.js';
import { callOrigin } from '../tool-context.js';
import { interceptToolsCall } from './intercept-tools-call.js';
import { legacyTask } from './legacy-era.js';
import { startOrAnswerCall, type ToolCallTarget, toolCallTarget, wireError } from './task-call.js';
import { TaskAlreadyFinishedError, type TaskRunner } from './task-runner.js';
import type { TaskRecord } from './task-store.js';

/**
 * Missing arguments of a task tool are asked before the task exists (SEP-2663's MRTR → task
 * composition): `tools/call` answers `input_required` rounds until they are in, and the round that
 * completes them creates the task with the completed arguments. A decline is the call's result.
 */
async function gatherMissing(
  ctx: ServerContext,
  target: ToolCallTarget,
  settings: AskSettings,
  log: Logger,
): Promise<{ args: Record<string, unknown> } | { refused: string } | { answer: unknown }> {
  const caller = callerOf(ctx);
  const asking = prepareAsking(ctx, {
    modern: true,
    settings,
    caller,
    tool: target.tool.name,
    args: target.args,
  });
  if (asking.ready) await asking.ready;
  try {
    // The bridge's log: a schema that does not compile is warned about once, whichever path compiles it.
    const completed = await target.registry.askMissing(
      target.tool,
      target.args,
      asking.ask(ctx.mcpReq.signal),
      { log },
      // The round's digest is of the arguments as the client sent them, taken before any correction.
      asking.snapshot,
    );
    if (!completed) return { args: target.args };
    if ('refused' in completed) return { refused: completed.refused };
    return { args: completed.args };
  } catch (error) {
    // An unanswered question: the input_required round (a refused one throws its JSON-RPC error).
    const answer = asking.settle({ error });
    if (answer) return { answer };
    throw error;
  }
}

/** The extension's identifier, in `server/discover` and in the client's per-request capabilities. */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

const taskIdParams = z.object({ taskId: z.string() });
const updateParams = z.object({
  taskId: z.string(),
  inputResponses: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Tasks of the 2026-07-28 era, the `io.modelcontextprotocol/tasks` extension (SEP-2663): the server
 * decides. For a client that declares the extension on the request, a `required` tool always runs
 * as a task, an `optional` one becomes a task unless it finishes within `answerWithinMs`; to a
 * client that does not, a `required` tool is refused with -32021 and an `optional` one runs plainly.
 * `tasks/get` inlines the result or error, `tasks/update` and `tasks/cancel` acknowledge with an
 * empty result; `tasks/result` and `tasks/list` do not exist in this era (-32601 from the SDK,
 * since they are not registered here).
 */
export function installModernTasks(
  server: Server,
  runner: TaskRunner,
  registry: () => ToolRegistry,
  asking?: AskSettings,
): void {
  server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });

  interceptToolsCall(server, (request, ctx) => {
    const target = toolCallTarget(request, registry());
    const support = target?.tool.definition.taskSupport ?? 'forbidden';
    if (!target || support === 'forbidden') return undefined;
    if (!declaresTasks(ctx)) {
      if (support === 'optional') return undefined;
      return Promise.reject(missingExtension(`Tool ${target.tool.name} runs only as a task`));
    }
    // A legacy `params.task` is ignored: in this era the server alone decides.
    // Quick calls of optional tools are answered directly: a task would only add polling.
    const answerWithinMs = support === 'optional' ? runner.answerWithinMs : 0;
    const askCapabilities = (envelopeCapabilities(ctx) ?? {}) as AskCapabilities;
    const start = (args: Record<string, unknown>) =>
      startOrAnswerCall(
        runner,
        { ...target, args },
        { origin: callOrigin(ctx), askCapabilities },
        answerWithinMs,
      ).then((outcome) =>
        'task' in outcome
          ? { resultType: 'task', ...modernTask(outcome.task) }
          : server.projectCallToolResult(
              outcome.result as CallToolResult,
              target.tool.definition.outputSchema,
            ),
      );
    if (!asking || !target.tool.definition.askMissing) return start(target.args);
    return gatherMissing(ctx, target, asking, runner.log).then((gathered) => {
      if ('args' in gathered) return start(gathered.args);
      if ('refused' in gathered)
        return server.projectCallToolResult(textResult(gathered.refused, true) as CallToolResult, undefined);
      return gathered.answer as Record<string, unknown>;
    });
  });

  server.setRequestHandler('tasks/get', { params: taskIdParams }, async ({ taskId }, ctx) => {
    requireExtension(ctx, 'tasks/get');
    const task = await runner.store.get(taskId, callerOf(ctx));
    if (!task) throw notFound(taskId);
    return detailedTask(task, runner);
  });

  server.setRequestHandler(
    'tasks/update',
    { params: updateParams },
    async ({ taskId, inputResponses }, ctx) => {
      requireExtension(ctx, 'tasks/update');
      const task = await runner.store.get(taskId, callerOf(ctx));
      if (!task) throw notFound(taskId);
      // Answers to questions no longer pending (or never asked) are ignored, as the spec says.
      try {
        // The SDK lifts `inputResponses` off the params of every request; read them where it puts them.
        const responses = ctx.mcpReq.inputResponses ?? inputResponses;
        const questions = runner.questions(taskId);
        // A task running on another instance (a shared store) gets its answers relayed there, and
        // only while it waits for some: nothing is broadcast for a task that asks nothing.
        if (responses && questions) questions.answer(responses);
        else if (responses && task.status === 'input_required')
          await runner.store.relayAnswers(taskId, responses);
      } catch (error) {
        if (error instanceof InvalidAnswerError)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
        throw error;
      }
      return {};
    },
  );

  server.setRequestHandler('tasks/cancel', { params: taskIdParams }, async ({ taskId }, ctx) => {
    requireExtension(ctx, 'tasks/cancel');
    try {
      if (!(await runner.cancel(taskId, callerOf(ctx)))) throw notFound(taskId);
    } catch (error) {
      // Cancellation is cooperative in this era: a task that already finished just keeps its status.
      if (!(error instanceof TaskAlreadyFinishedError)) throw wireError(error);
    }
    return {};
  });
}

/** A task as the 2026-07-28 wire shows it (`Task`): the 2025-11-25 shape with `…Ms` field names. */
function modernTask(task: Readonly<TaskRecord>) {
  const { ttl, pollInterval, ...rest } = legacyTask(task);
  return { ...rest, ttlMs: ttl, pollIntervalMs: pollInterval };
}

/**
 * `DetailedTask`, as `tasks/get` and `notifications/tasks` show it: the task with its result
 * (completed) or JSON-RPC error (failed) inlined, or the questions it waits on (input_required).
 */
export function detailedTask(task: Readonly<TaskRecord>, runner: TaskRunner) {
  const base = modernTask(task);
  if (task.outcome?.kind === 'result') return { ...base, result: task.outcome.result };
  if (task.outcome?.kind === 'error') return { ...base, error: task.outcome.error };
  if (task.status === 'input_required') {
    // The running instance knows every question; any other shows those stored with the task.
    const asked = runner.questions(task.taskId)?.inputRequests() ?? task.inputRequests ?? {};
    return { ...base, inputRequests: asked };
  }
  return base;
}

function envelopeCapabilities(ctx: ServerContext): { extensions?: Record<string, unknown> } | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
}

function declaresTasks(ctx: ServerContext): boolean {
  return envelopeCapabilities(ctx)?.extensions?.[TASKS_EXTENSION] !== undefined;
}

function requireExtension(ctx: ServerContext, method: string): void {
  if (!declaresTasks(ctx)) throw missingExtension(`${method} belongs to the tasks extension`);
}

function missingExtension(why: string): ProtocolError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${why}: declare the ${TASKS_EXTENSION} extension in the request's clientCapabilities.`,
  );
}

function notFound(taskId: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Failed to retrieve task: ${quote(taskId)} does not exist, has expired, or belongs to another client.`,
  );
}
