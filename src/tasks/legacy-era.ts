import {
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { callerOf } from '../caller.js';
import { trackClientRoots } from '../client-roots.js';
import { quote } from '../quote-input.js';
import type { ToolRegistry } from '../registry.js';
import { callOrigin } from '../tool-context.js';
import { interceptToolsCall } from './intercept-tools-call.js';
import { startTaskCall, toolCallTarget, wireError } from './task-call.js';
import type { TaskRunner } from './task-runner.js';
import type { TaskRecord } from './task-store.js';

const taskIdParams = z.object({ taskId: z.string() });
/** How long a question sent on `tasks/result` waits for its answer: a person may be answering it. */
const SIDE_CHANNEL_TIMEOUT_MS = 5 * 60_000;
const listParams = z.object({ cursor: z.string().optional() });

/**
 * Tasks of the initialize era (2025-11-25, experimental in the spec): the `tasks` capability,
 * `tools/call` with `params.task`, `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`, and
 * `notifications/tasks/status` to the connection that created the task.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 */
export function installLegacyTasks(server: Server, runner: TaskRunner, registry: () => ToolRegistry): void {
  server.registerCapabilities({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });

  interceptToolsCall(server, (request, ctx) => {
    const target = toolCallTarget(request, registry());
    if (!target) return undefined;
    const support = target.tool.definition.taskSupport ?? 'forbidden';
    const taskParam = request.params?.task;
    if (taskParam === undefined) {
      if (support !== 'required') return undefined;
      // The spec's rule for a `required` tool called without a task (not an isError result).
      return Promise.reject(
        new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `Tool ${target.tool.name} must run as a task: call it with params.task (e.g. {"ttl": 60000}).`,
        ),
      );
    }
    if (support === 'forbidden') {
      return Promise.reject(
        new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `Tool ${target.tool.name} does not support running as a task: call it without params.task.`,
        ),
      );
    }
    if (typeof taskParam !== 'object' || taskParam === null || Array.isArray(taskParam)) {
      return Promise.reject(
        new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'Invalid params.task: expected an object like {"ttl": 60000}.',
        ),
      );
    }
    // Roots are read now, while the request can still carry a server-to-client request; a failed
    // read is kept for the task's tool, which reports it as a direct call would.
    const roots = trackClientRoots(server)(ctx);
    return roots
      .catch(() => undefined)
      .then(() =>
        startTaskCall(runner, target, {
          origin: callOrigin(ctx),
          roots,
          askCapabilities: server.getClientCapabilities() ?? {},
          requestedTtl: (taskParam as { ttl?: unknown }).ttl,
          // Best effort: stdio always carries it; HTTP only while the client keeps its GET stream open.
          notify: (task) => {
            server
              .notification({ method: 'notifications/tasks/status', params: legacyTask(task) })
              .catch(() => {});
          },
        }),
      )
      .then((task) => ({ task: legacyTask(task) }));
  });

  server.setRequestHandler('tasks/get', { params: taskIdParams }, async ({ taskId }, ctx) =>
    legacyTask(await found(runner, taskId, ctx)),
  );

  server.setRequestHandler('tasks/result', { params: taskIdParams }, async ({ taskId }, ctx) => {
    // The spec's side channel: while the client waits here, the task's questions are asked on this request.
    const questions = (await runner.store.get(taskId, callerOf(ctx))) ? runner.questions(taskId) : undefined;
    const detach = questions?.attach((request) =>
      ctx.mcpReq.send(
        {
          method: request.method as 'elicitation/create',
          params: { ...request.params, _meta: { [RELATED_TASK_META_KEY]: { taskId } } },
        },
        { signal: ctx.mcpReq.signal, timeout: SIDE_CHANNEL_TIMEOUT_MS },
      ),
    );
    let task: Readonly<TaskRecord> | undefined;
    try {
      task = await runner.store.waitForTerminal(taskId, callerOf(ctx), ctx.mcpReq.signal);
    } finally {
      detach?.();
    }
    if (!task) throw notFound(taskId);
    const related = { [RELATED_TASK_META_KEY]: { taskId } };
    if (task.outcome?.kind === 'error') {
      const { code, message, data } = task.outcome.error;
      throw new ProtocolError(code, message, data);
    }
    // What the call itself would have returned; a cancelled task has no result to give.
    const result =
      task.outcome?.kind === 'result'
        ? task.outcome.result
        : { content: [{ type: 'text' as const, text: `Task ${taskId} was cancelled.` }], isError: true };
    return { ...result, _meta: related };
  });

  server.setRequestHandler('tasks/list', { params: listParams }, async ({ cursor }, ctx) => {
    try {
      const page = await runner.store.list(callerOf(ctx), cursor);
      const tasks = page.tasks.map(legacyTask);
      return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
    } catch (error) {
      throw wireError(error);
    }
  });

  server.setRequestHandler('tasks/cancel', { params: taskIdParams }, async ({ taskId }, ctx) => {
    const task = await runner.cancel(taskId, callerOf(ctx)).catch((error: unknown) => {
      throw wireError(error);
    });
    if (!task) throw notFound(taskId);
    return legacyTask(task);
  });
}

/** A task as the 2025-11-25 wire shows it. */
export function legacyTask(task: Readonly<TaskRecord>) {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttl: task.ttlMs,
    pollInterval: task.pollIntervalMs,
  };
}

async function found(runner: TaskRunner, taskId: string, ctx: ServerContext) {
  const task = await runner.store.get(taskId, callerOf(ctx));
  if (!task) throw notFound(taskId);
  return task;
}

function notFound(taskId: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Task not found: ${quote(taskId)} does not exist, has expired, or belongs to another client.`,
  );
}
