import type { McpRequestContext, Server } from '@modelcontextprotocol/server';
import type { AskSettings } from '../ask/call-asking.js';
import { sessionCaller } from '../caller.js';
import type { ToolRegistry } from '../registry.js';
import { installLegacyTasks } from './legacy-era.js';
import { detailedTask, installModernTasks } from './modern-era.js';
import type { TaskFeed } from './task-listen.js';
import { type TaskOptions, TaskRunner, type TaskRunnerSetup } from './task-runner.js';

/** Task support for a server factory: one runner and store shared by every server instance. */
export interface TaskLayer {
  /** Adds the task capability and handlers of the instance's era. Call after `tools/call` is registered. */
  install(server: Server, context: McpRequestContext): void;
  /** Task changes for 2026-07-28 `subscriptions/listen` streams. */
  feed: TaskFeed;
  /** An initialize-era HTTP session ended (DELETE, eviction, idleness): its own tasks are cancelled. */
  sessionClosed(sessionId: string): void;
}

/** Why the tasks of a closed session stop, as their status message says. */
const SESSION_CLOSED = 'Cancelled: the session that created this task was closed.';

/**
 * Creates the task layer once per factory: every connection, session and 2026-07-28 request shares
 * the store, so a task created on one request is found by the next.
 */
export function createTaskSupport(
  setup: TaskRunnerSetup & { registry: () => ToolRegistry },
  options: TaskOptions = {},
  /** 2026-07-28: missing arguments are asked on `tools/call` before the task exists. */
  asking?: AskSettings,
): TaskLayer {
  const runner = new TaskRunner(setup, options);
  const feed: TaskFeed = {
    current: async (taskId, caller) => {
      const task = await runner.store.get(taskId, caller);
      return task && detailedTask(task, runner);
    },
    subscribe: (listener) =>
      runner.store.subscribe((event) => {
        if (event.type === 'status') listener(event.task.caller, detailedTask(event.task, runner));
      }),
  };
  return {
    feed,
    // The tasks of an anonymous session belong to `session:<id>`: once it is closed nobody can read,
    // list, cancel or collect them, so running on would only spend the upstream's work and hold
    // places of the address's running cap until their TTL (up to an hour). An authenticated
    // caller's tasks are its own, not the session's (`auth:<subject>`), and run on.
    sessionClosed(sessionId) {
      void runner.cancelAllOf(sessionCaller(sessionId), SESSION_CLOSED);
    },
    install(server, context) {
      if (context.era === 'modern') installModernTasks(server, runner, setup.registry, asking);
      else installLegacyTasks(server, runner, setup.registry);
    },
  };
}
