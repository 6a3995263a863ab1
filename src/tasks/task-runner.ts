import type { AskCapabilities } from '../ask/ask-params.js';
import { AskInterrupt } from '../ask/client-ask.js';
import { TaskQuestions } from '../ask/task-questions.js';
import { BridgeError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RegisteredTool, ToolRegistry } from '../registry.js';
import type { ResourceStore } from '../resource-store.js';
import { type ToolContext, type ToolResult, textResult } from '../tool.js';
import { MemoryTaskStore, type MemoryTaskStoreOptions } from './memory-task-store.js';
import { isTerminal, type TaskRecord, type TaskStore } from './task-store.js';

const PROGRESS_INTERVAL_MS = 250;

/** How tasks live: their lifetime bounds, the polling pace suggested to clients, the store. */
export interface TaskOptions {
  /** Where tasks are kept. Default: a `MemoryTaskStore` with `memory` options. */
  store?: TaskStore;
  memory?: MemoryTaskStoreOptions;
  /** TTL when the client asks for none (and always in the 2026-07-28 era). Default 15 minutes. */
  defaultTtlMs?: number;
  /** Bounds of a TTL the client asks for; outside them the request is refused. Default 1 s … 1 h. */
  minTtlMs?: number;
  maxTtlMs?: number;
  /** Suggested pause between two `tasks/get`. Default 1 s. */
  pollIntervalMs?: number;
  /**
   * 2026-07-28 era, where the server decides: a call of an `optional` tool that finishes within
   * this many milliseconds is answered directly rather than as a task, so quick calls cost no
   * polling. Default 0: every such call is a task, which is what clients opting in (and the
   * conformance suite's tasks scenarios) expect. `required` tools always run as tasks.
   */
  answerWithinMs?: number;
}

/** What the runner needs of the server setup. */
export interface TaskRunnerSetup {
  log: Logger;
  resources: ResourceStore;
  /** Aborted at shutdown: every task's work stops. */
  shutdown: AbortSignal;
}

/** One tool call to run as a task. */
export interface TaskCall {
  registry: ToolRegistry;
  tool: RegisteredTool;
  args: Record<string, unknown>;
  caller: string;
  ttlMs: number;
  /** Hears the task's transitions (the connection that created it), when anyone can. */
  notify?: (task: Readonly<TaskRecord>) => void;
  /** The client's MCP roots as read when the task was created, when it offers them. */
  roots?: string[];
  /** What the creating client can answer (see `TaskQuestions`); without it, the task's tool cannot ask. */
  askCapabilities?: AskCapabilities;
}

/** A TTL outside the configured bounds, or not a number of milliseconds (`invalid_params`). */
export class TaskTtlError extends BridgeError {
  constructor(message: string) {
    super('invalid_params', message);
  }
}

/** Cancelling a task that already reached `completed`, `failed` or `cancelled` (`invalid_params`). */
export class TaskAlreadyFinishedError extends BridgeError {
  constructor(message: string) {
    super('invalid_params', message);
  }
}

/**
 * Runs tool calls as tasks: creates the task in the store, runs the tool through the registry's
 * usual invoke path (argument validation, `isError` results, paging into the resource store bound to
 * the task's caller), records the outcome, and stops the work when the task is cancelled or expires.
 * Era-neutral: the era handlers translate between the wire and this.
 */
export class TaskRunner {
  readonly store: TaskStore;
  readonly #setup: TaskRunnerSetup;
  readonly #options: Required<Omit<TaskOptions, 'store' | 'memory'>>;
  /** The work of tasks started by this process, stopped on cancel or expiry. */
  readonly #running = new Map<string, AbortController>();
  /** Who hears of each task's transitions (the connection that created it), when anyone can. */
  readonly #notifiers = new Map<string, (task: Readonly<TaskRecord>) => void>();
  /** The questions of each running task whose client can be asked. */
  readonly #questions = new Map<string, TaskQuestions>();

  constructor(setup: TaskRunnerSetup, options: TaskOptions = {}) {
    this.#setup = setup;
    this.store = options.store ?? new MemoryTaskStore(options.memory);
    this.#options = {
      defaultTtlMs: options.defaultTtlMs ?? 15 * 60_000,
      minTtlMs: options.minTtlMs ?? 1_000,
      maxTtlMs: options.maxTtlMs ?? 60 * 60_000,
      pollIntervalMs: options.pollIntervalMs ?? 1_000,
      answerWithinMs: options.answerWithinMs ?? 0,
    };
    this.store.subscribe((event) => {
      const { taskId } = event.task;
      if (event.type === 'status') this.#notifiers.get(taskId)?.(event.task);
      if (event.type === 'expired' || isTerminal(event.task.status)) {
        // The one place work stops: a task cancelled, or dropped at the end of its TTL while still
        // running (completed and failed come after the work ended, so the abort is a no-op then).
        const reason = event.type === 'expired' ? 'The task expired.' : `The task was ${event.task.status}.`;
        this.#running.get(taskId)?.abort(new Error(reason));
        this.#running.delete(taskId);
        this.#notifiers.delete(taskId);
        this.#questions.delete(taskId);
      }
    });
    // One shutdown listener for all tasks, not one per task: thousands of tasks may run at once.
    setup.shutdown.addEventListener(
      'abort',
      () => {
        for (const controller of this.#running.values()) controller.abort(setup.shutdown.reason);
        this.#running.clear();
        // A store passed in may be shared with other instances: only ours is ours to close.
        if (!options.store) this.store.close();
      },
      { once: true },
    );
  }

  /** The questions a running task's tool is waiting on, for the era handlers to deliver and answer. */
  questions(taskId: string): TaskQuestions | undefined {
    return this.#questions.get(taskId);
  }

  /** See `TaskOptions.answerWithinMs`. */
  get answerWithinMs(): number {
    return this.#options.answerWithinMs;
  }

  /** The TTL to use for a requested one: the default when absent; throws `TaskTtlError` when out of bounds. */
  resolveTtl(requested: unknown): number {
    if (requested === undefined || requested === null) return this.#options.defaultTtlMs;
    const { minTtlMs, maxTtlMs } = this.#options;
    if (
      typeof requested !== 'number' ||
      !Number.isInteger(requested) ||
      requested < minTtlMs ||
      requested > maxTtlMs
    ) {
      throw new TaskTtlError(
        `Invalid task ttl ${JSON.stringify(requested)}: it must be a whole number of milliseconds from ${minTtlMs} to ${maxTtlMs}, or left out for the default (${this.#options.defaultTtlMs}).`,
      );
    }
    return requested;
  }

  /**
   * Creates the task and starts the tool in the background; resolves with the new task as soon as
   * it exists, so that a `tasks/get` right after the create result finds it.
   */
  async start(call: TaskCall): Promise<Readonly<TaskRecord>> {
    const { task, work } = await this.#launch(call);
    void this.#settle(task.taskId, call.tool.name, work);
    return task;
  }

  /**
   * Like `start`, but a call that finishes within `withinMs` is answered directly and its task,
   * never shown to the client, is dropped. The task is created first all the same, so the memory
   * cap is checked before any work begins.
   */
  async startOrAnswer(
    call: TaskCall,
    withinMs: number,
  ): Promise<{ task: Readonly<TaskRecord> } | { result: ToolResult }> {
    if (withinMs <= 0) return { task: await this.start(call) };
    const { task, work } = await this.#launch(call);
    let timer: NodeJS.Timeout | undefined;
    const quick = await Promise.race([
      work.catch(() => undefined),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), withinMs);
      }),
    ]);
    clearTimeout(timer);
    if (quick) {
      this.#running.delete(task.taskId);
      this.#notifiers.delete(task.taskId);
      this.#questions.delete(task.taskId);
      await this.store.delete(task.taskId);
      return { result: quick };
    }
    void this.#settle(task.taskId, call.tool.name, work);
    return { task };
  }

  async #launch(call: TaskCall): Promise<{ task: Readonly<TaskRecord>; work: Promise<ToolResult> }> {
    const task = await this.store.create({
      caller: call.caller,
      toolName: call.tool.name,
      ttlMs: call.ttlMs,
      pollIntervalMs: this.#options.pollIntervalMs,
    });
    const controller = new AbortController();
    if (this.#setup.shutdown.aborted) controller.abort(this.#setup.shutdown.reason);
    this.#running.set(task.taskId, controller);
    if (call.notify) this.#notifiers.set(task.taskId, call.notify);
    const context: ToolContext = {
      signal: controller.signal,
      // Progress has no request to ride on once the create result is sent: it becomes the status message.
      progress: this.#progressReporter(task.taskId),
      log: this.#setup.log,
      resources: this.#setup.resources,
      caller: call.caller,
    };
    const { roots } = call;
    if (roots) context.roots = async () => roots;
    if (call.askCapabilities) {
      const questions = new TaskQuestions({
        capabilities: call.askCapabilities,
        signal: controller.signal,
        onWaiting: (waiting) => {
          const status = waiting ? 'input_required' : 'working';
          const statusMessage = waiting ? 'Waiting for input from the client.' : 'Input received; working.';
          void this.store.transition(task.taskId, status, { statusMessage }).catch(() => {});
        },
      });
      this.#questions.set(task.taskId, questions);
      context.ask = questions.ask;
    }
    // A question the client cannot take, or a bad answer, ends the task's call as the model's error.
    const work = call.registry.call(call.tool, call.args, context).catch((error: unknown) => {
      if (error instanceof AskInterrupt) return textResult(`${call.tool.name}: ${error.message}`, true);
      throw error;
    });
    return { task, work };
  }

  /**
   * Cancels a task of `caller`: marks it `cancelled`, which aborts its work (and kills its process).
   * Resolves `undefined` for an unknown task; throws `TaskAlreadyFinishedError` for a finished one.
   */
  async cancel(taskId: string, caller: string): Promise<Readonly<TaskRecord> | undefined> {
    const task = await this.store.get(taskId, caller);
    if (!task) return undefined;
    const cancelled = isTerminal(task.status)
      ? undefined
      : await this.store.transition(taskId, 'cancelled', { statusMessage: 'Cancelled by the client.' });
    if (!cancelled) {
      throw new TaskAlreadyFinishedError(
        `Task ${taskId} is already ${task.status}: only a working task can be cancelled.`,
      );
    }
    return cancelled;
  }

  // At most one status update per PROGRESS_INTERVAL_MS, each also a status notification.
  #progressReporter(taskId: string): ToolContext['progress'] {
    let last = 0;
    return (update) => {
      const now = Date.now();
      if (now - last < PROGRESS_INTERVAL_MS) return;
      last = now;
      const amount = update.total === undefined ? `${update.progress}` : `${update.progress}/${update.total}`;
      const statusMessage = update.message === undefined ? amount : `${update.message} (${amount})`;
      void this.store.transition(taskId, 'working', { statusMessage }).catch(() => {});
    };
  }

  async #settle(taskId: string, toolName: string, work: Promise<ToolResult>): Promise<void> {
    try {
      const result = await work;
      // A task cancelled meanwhile stays cancelled: `transition` refuses to leave a terminal status.
      await this.store.transition(taskId, 'completed', {
        ...(result.isError ? { statusMessage: 'The tool reported an error.' } : {}),
        outcome: { kind: 'result', result },
      });
    } catch (error) {
      // `registry.call` turns tool failures into results; reaching here is a bridge bug.
      this.#setup.log.error(`task ${taskId} (${toolName}) failed`, { reason: describeError(error) });
      await this.store
        .transition(taskId, 'failed', {
          statusMessage: describeError(error),
          outcome: {
            kind: 'error',
            error: { code: -32603, message: `Internal error: ${describeError(error)}` },
          },
        })
        .catch(() => {});
    }
  }
}
