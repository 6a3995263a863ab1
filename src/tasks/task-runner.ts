import type { AskCapabilities } from '../ask/ask-params.js';
import { clientRootsThrough } from '../ask/call-asking.js';
import { AskInterrupt, type ClientRoot } from '../ask/client-ask.js';
import { TaskQuestions } from '../ask/task-questions.js';
import { mebibytes } from '../count-of.js';
import { BridgeError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { quote } from '../quote-input.js';
import { type RegisteredTool, type ToolRegistry, throwInternalFailures } from '../registry.js';
import type { ResourceStore } from '../resource-store.js';
import type { SignInCallbacks } from '../sign-in/sign-in-callbacks.js';
import { type ToolContext, type ToolResult, textResult } from '../tool.js';
import { buildToolContext, type CallOrigin } from '../tool-context.js';
import { MAX_RESULT_BYTES, resultBytes, resultNotKept } from './bound-result.js';
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
  /**
   * Tasks one caller may have running in this process at once; the next is refused (`capacity`)
   * until one ends. Like `--max-calls-per-caller` for plain calls, so a client cannot start
   * hundreds of processes by asking for tasks; counted, like it, by quota key (`quotaKeyOf`: an
   * anonymous client's peer address, whatever number of sessions it opens). Default 32.
   */
  maxRunningPerCaller?: number;
  /**
   * Bytes one task result (its JSON) may take: a larger one is kept as an `isError` result saying
   * how large it was, since a task holds its result for its whole TTL (up to an hour), unlike a
   * plain call's answer. The store bounds what all of a caller's results hold. Default 4 MiB.
   */
  maxResultBytes?: number;
}

/** What the runner needs of the server setup. */
export interface TaskRunnerSetup {
  log: Logger;
  resources: ResourceStore;
  /** Aborted at shutdown: every task's work stops. */
  shutdown: AbortSignal;
  /** Where upstream sign-in redirects arrive, for tasks whose tool signs the user in. */
  signIn?: SignInCallbacks;
}

/** One tool call to run as a task. */
export interface TaskCall {
  registry: ToolRegistry;
  tool: RegisteredTool;
  args: Record<string, unknown>;
  /** Who created the task and with what credentials, captured from the creating request. */
  origin: CallOrigin;
  ttlMs: number;
  /** Hears the task's transitions (the connection that created it), when anyone can. */
  notify?: (task: Readonly<TaskRecord>) => void;
  /**
   * Initialize era: the client's MCP roots as read when the task was created (settled by then; a
   * failed read is the task's to report, as a direct call's would be).
   */
  roots?: Promise<readonly ClientRoot[] | undefined>;
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
  readonly #running = new Map<string, { controller: AbortController; caller: string; quotaKey: string }>();
  /** How many of `#running` each quota key has. */
  readonly #runningBy = new Map<string, number>();
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
      maxRunningPerCaller: options.maxRunningPerCaller ?? 32,
      maxResultBytes: options.maxResultBytes ?? MAX_RESULT_BYTES,
    };
    this.store.subscribe((event) => {
      const { taskId } = event.task;
      if (event.type === 'status') this.#notifiers.get(taskId)?.(event.task);
      if (event.type === 'expired' || isTerminal(event.task.status)) {
        // The one place work stops: a task cancelled, or dropped at the end of its TTL while still
        // running (completed and failed come after the work ended, so the abort is a no-op then).
        const reason = event.type === 'expired' ? 'The task expired.' : `The task was ${event.task.status}.`;
        this.#running.get(taskId)?.controller.abort(new Error(reason));
        this.#release(taskId);
        this.#notifiers.delete(taskId);
        this.#questions.delete(taskId);
      }
    });
    // Answers given through another instance (2026-07-28 tasks/update) reach the questions here.
    this.store.onAnswers((taskId, responses) => {
      try {
        this.#questions.get(taskId)?.answer(responses);
      } catch (error) {
        setup.log.warn(`task ${taskId}: answers relayed from another instance were refused`, {
          reason: describeError(error),
        });
      }
    });
    // One shutdown listener for all tasks, not one per task: thousands of tasks may run at once.
    setup.shutdown.addEventListener(
      'abort',
      () => {
        const running = [...this.#running];
        this.#running.clear();
        this.#runningBy.clear();
        // A store passed in may be shared with other instances: only ours is ours to close.
        if (!options.store) {
          for (const [, { controller }] of running) controller.abort(setup.shutdown.reason);
          void this.store.close();
          return;
        }
        // Others still see these tasks: they end as failed with the reason before their work
        // stops (else the aborted work would read as a completed call that was cancelled).
        const reason =
          'The bridge instance running this task shut down before it finished. Run the tool again.';
        const error = { code: -32603, message: reason };
        for (const [taskId, { controller }] of running) {
          void this.store
            .transition(taskId, 'failed', { statusMessage: reason, outcome: { kind: 'error', error } })
            .catch(() => {})
            .finally(() => controller.abort(setup.shutdown.reason));
        }
      },
      { once: true },
    );
  }

  /** The questions a running task's tool is waiting on, for the era handlers to deliver and answer. */
  questions(taskId: string): TaskQuestions | undefined {
    return this.#questions.get(taskId);
  }

  /** The bridge's log, for the era handlers' work outside a task. */
  get log(): Logger {
    return this.#setup.log;
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
        `Invalid task ttl ${quote(requested)}: it must be a whole number of milliseconds from ${minTtlMs} to ${maxTtlMs}, or left out for the default (${this.#options.defaultTtlMs}).`,
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
      this.#release(task.taskId);
      this.#notifiers.delete(task.taskId);
      this.#questions.delete(task.taskId);
      await this.store.delete(task.taskId);
      return { result: quick };
    }
    void this.#settle(task.taskId, call.tool.name, work);
    return { task };
  }

  /**
   * Cancels the unfinished tasks of `caller` that this process runs, saying `reason`: for a caller
   * that is gone for good (a closed session), whose tasks nobody can read, cancel or collect any more.
   */
  async cancelAllOf(caller: string, reason: string): Promise<void> {
    const owned = [...this.#running].filter(([, running]) => running.caller === caller);
    await Promise.all(
      owned.map(([taskId]) =>
        this.store.transition(taskId, 'cancelled', { statusMessage: reason }).catch((error: unknown) => {
          this.#setup.log.warn(`task ${taskId}: cancelling it failed`, { reason: describeError(error) });
        }),
      ),
    );
  }

  // A running task of this process is over: it no longer counts against its quota key.
  #release(taskId: string): void {
    const running = this.#running.get(taskId);
    if (!running) return;
    this.#running.delete(taskId);
    this.#uncount(running.quotaKey);
  }

  #uncount(quotaKey: string): void {
    const left = (this.#runningBy.get(quotaKey) ?? 1) - 1;
    if (left > 0) this.#runningBy.set(quotaKey, left);
    else this.#runningBy.delete(quotaKey);
  }

  async #launch(call: TaskCall): Promise<{ task: Readonly<TaskRecord>; work: Promise<ToolResult> }> {
    const { caller, quotaKey } = call.origin;
    const running = this.#runningBy.get(quotaKey) ?? 0;
    if (running >= this.#options.maxRunningPerCaller) {
      throw new BridgeError(
        'capacity',
        `This client already has ${running} tasks running here, the most allowed at once (${this.#options.maxRunningPerCaller}${quotaKey === caller ? '' : ', counted for all sessions and requests from its network address'}): wait for one to finish or cancel one, then try again.`,
      );
    }
    // Counted before the store is asked, so concurrent creations cannot all pass the check.
    this.#runningBy.set(quotaKey, running + 1);
    let task: Readonly<TaskRecord>;
    try {
      task = await this.store.create({
        caller,
        quotaKey,
        toolName: call.tool.name,
        ttlMs: call.ttlMs,
        pollIntervalMs: this.#options.pollIntervalMs,
      });
    } catch (error) {
      this.#uncount(quotaKey);
      throw error;
    }
    const controller = new AbortController();
    if (this.#setup.shutdown.aborted) controller.abort(this.#setup.shutdown.reason);
    this.#running.set(task.taskId, { controller, caller, quotaKey });
    if (call.notify) this.#notifiers.set(task.taskId, call.notify);
    const { roots } = call;
    let questions: TaskQuestions | undefined;
    if (call.askCapabilities) {
      questions = new TaskQuestions({
        capabilities: call.askCapabilities,
        signal: controller.signal,
        onWaiting: (waiting) => {
          const status = waiting ? 'input_required' : 'working';
          const statusMessage = waiting ? 'Waiting for input from the client.' : 'Input received; working.';
          // Stored with the questions, so that an instance that does not run the task can show them.
          const details =
            waiting && questions
              ? { statusMessage, inputRequests: questions.inputRequests() }
              : { statusMessage };
          void this.store.transition(task.taskId, status, details).catch(() => {});
        },
      });
      this.#questions.set(task.taskId, questions);
    }
    const context = buildToolContext(call.origin, {
      signal: controller.signal,
      // Progress has no request to ride on once the create result is sent: it becomes the status message.
      progress: this.#progressReporter(task.taskId),
      log: this.#setup.log,
      resources: this.#setup.resources,
      // Roots read when the task was created (initialize era), else asked through the task's own
      // questions (2026-07-28: input_required, answered by tasks/update), as a direct call would.
      ...(roots
        ? { roots: () => roots }
        : questions?.ask.can('roots')
          ? { roots: () => clientRootsThrough((questions as TaskQuestions).ask) }
          : {}),
      ...(questions ? { ask: questions.ask } : {}),
      ...(this.#setup.signIn ? { signIn: this.#setup.signIn } : {}),
    });
    // A tool's unexpected failure ends the task `failed` with -32603 (see `#settle`), not `completed`.
    throwInternalFailures(context);
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
      // A task waiting for input stays so: going back to `working` would hide its questions.
      if (this.#questions.get(taskId)?.waiting) return;
      last = now;
      const amount = update.total === undefined ? `${update.progress}` : `${update.progress}/${update.total}`;
      const statusMessage = update.message === undefined ? amount : `${update.message} (${amount})`;
      void this.store.transition(taskId, 'working', { statusMessage }).catch(() => {});
    };
  }

  // The result as the task keeps it, with its bytes: itself, or when larger than a task result may
  // be, an error saying so (the bytes would otherwise be held for the task's TTL, in memory or in
  // Redis). The bytes go to the store, which counts them against the caller's budget.
  #bounded(result: ToolResult): { result: ToolResult; bytes: number } {
    const bytes = resultBytes(result);
    const max = this.#options.maxResultBytes;
    if (bytes <= max) return { result, bytes };
    const error = resultNotKept(bytes, `one task result may take ${mebibytes(max)}`);
    return { result: error, bytes: resultBytes(error) };
  }

  async #settle(taskId: string, toolName: string, work: Promise<ToolResult>): Promise<void> {
    try {
      const { result, bytes } = this.#bounded(await work);
      // A task cancelled meanwhile stays cancelled: `transition` refuses to leave a terminal status.
      await this.store.transition(taskId, 'completed', {
        ...(result.isError ? { statusMessage: 'The tool reported an error.' } : {}),
        outcome: { kind: 'result', result },
        resultBytes: bytes,
      });
    } catch (error) {
      // `registry.call` turns tool failures into results but the unexpected ones (a bug, in the
      // tool or the bridge): a protocol-level failure, the task's `failed` status.
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
