import { randomBytes } from 'node:crypto';
import { mebibytes } from '../count-of.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { MAX_RESULT_BYTES_PER_CALLER, resultBytes, resultNotKept } from '../tasks/bound-result.js';
import {
  decodeTaskCursor,
  encodeTaskCursor,
  type NewTask,
  type TaskEvent,
  type TaskPage,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
  TaskStoreFullError,
  type TransitionDetails,
} from '../tasks/task-store.js';
import { pairs, type RedisConnection, readTolerant } from './redis-connection.js';
import { recordOf, relayedRecord, taskFields } from './task-fields.js';
import { TaskLease } from './task-lease.js';
import { CREATE, TRANSITION } from './task-scripts.js';
import { waitForTerminal } from './wait-for-terminal.js';

/** The ids `create` issues: 16 random bytes, base64url. */
const TASK_ID = /^[A-Za-z0-9_-]{22}$/;

export interface RedisTaskStoreOptions {
  /**
   * Tasks one quota key (`NewTask.quotaKey`, else the caller) may hold at once; finished ones make
   * room first. Default 1,000.
   */
  maxTasksPerCaller?: number;
  /** Tasks per `tasks/list` page. Default 100. */
  pageSize?: number;
  /**
   * Bytes of results (their JSON) one quota key's tasks may hold at once; a result that would pass
   * it is kept as an `isError` result saying so. Default 16 MiB.
   */
  maxResultBytesPerCaller?: number;
  /** How often this instance says it is alive. Default 1 s. */
  heartbeatMs?: number;
  /** Silence after which another instance fails this one's unfinished tasks. Default 5 s. */
  leaseMs?: number;
}

/**
 * The `TaskStore` in Redis, shared by every bridge instance on it: a task created through one
 * instance is read, listed, updated and cancelled through any other. The work stays with the
 * instance that runs it; transitions are published to every instance (so a cancel on B stops the
 * process on A, and `notifications/tasks` reach listeners on B), and a heartbeat lease fails the
 * unfinished tasks of an instance that died. Redis does the expiry.
 */
export class RedisTaskStore implements TaskStore {
  readonly #redis: RedisConnection;
  readonly #log: Logger;
  readonly #prefix: string;
  readonly #channel: string;
  readonly #answersChannel: string;
  readonly #answerListeners = new Set<(taskId: string, responses: Record<string, unknown>) => void>();
  /** This process, as named in the heartbeat set and on the tasks it runs. */
  readonly instance = randomBytes(8).toString('hex');
  readonly #options: Required<Omit<RedisTaskStoreOptions, 'heartbeatMs' | 'leaseMs'>>;
  readonly #listeners = new Set<(event: TaskEvent) => void>();
  /** The tasks created here: their callers and quota keys, and timers that report their expiry locally. */
  readonly #own = new Map<string, { caller: string; quotaKey: string; timer: NodeJS.Timeout }>();
  readonly #lease: TaskLease;

  private constructor(redis: RedisConnection, log: Logger, options: RedisTaskStoreOptions) {
    this.#redis = redis;
    this.#log = log;
    this.#prefix = `${redis.address.namespace}:task:`;
    this.#channel = `${redis.address.namespace}:task-events`;
    this.#answersChannel = `${redis.address.namespace}:task-answers`;
    this.#options = {
      maxTasksPerCaller: 1_000,
      pageSize: 100,
      maxResultBytesPerCaller: MAX_RESULT_BYTES_PER_CALLER,
      ...options,
    };
    this.#lease = new TaskLease({
      redis,
      log,
      instance: this.instance,
      heartbeatMs: options.heartbeatMs ?? 1_000,
      leaseMs: options.leaseMs ?? 5_000,
      fail: (taskId, reason) =>
        this.transition(taskId, 'failed', {
          statusMessage: reason,
          outcome: { kind: 'error', error: { code: -32603, message: reason } },
        }),
    });
  }

  /** Opens the store: subscribes to task events and starts the heartbeat. */
  static async open(
    redis: RedisConnection,
    log: Logger,
    options: RedisTaskStoreOptions = {},
  ): Promise<RedisTaskStore> {
    const store = new RedisTaskStore(redis, log, options);
    await redis.subscriber.subscribe(store.#channel, (message) => store.#relay(message));
    await redis.subscriber.subscribe(store.#answersChannel, (message) => store.#relayedAnswers(message));
    await store.#lease.start();
    return store;
  }

  async create(task: NewTask): Promise<Readonly<TaskRecord>> {
    const now = Date.now();
    const quotaKey = task.quotaKey ?? task.caller;
    const record: TaskRecord = {
      taskId: randomBytes(16).toString('base64url'), // matches TASK_ID
      caller: task.caller,
      toolName: task.toolName,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: task.ttlMs,
      pollIntervalMs: task.pollIntervalMs,
    };
    const [seq, foreign] = (await this.#redis.run((client) =>
      client.sendCommand([
        'EVAL',
        CREATE,
        '3',
        this.#prefix + record.taskId,
        this.#index(task.caller),
        this.#index(quotaKey),
        String(this.#options.maxTasksPerCaller),
        String(task.ttlMs),
        this.#prefix,
        this.#lease.runningKey,
        record.taskId,
        this.#index(''),
        ...taskFields(record, this.instance),
        // Whose budget of result bytes the task's result counts against (see TRANSITION).
        'quotaKey',
        quotaKey,
      ]),
    )) as [number, number];
    if (Number(foreign) === 1) {
      this.#log.warn(`store: replaced values under ${this.#prefix} that this bridge did not write`);
    }
    if (Number(seq) < 0) {
      throw new TaskStoreFullError(
        `Too many tasks: this client already has ${this.#options.maxTasksPerCaller} unfinished tasks (the limit). Wait for some to finish or cancel them.`,
      );
    }
    const timer = setTimeout(() => this.#expire(record), task.ttlMs);
    timer.unref();
    this.#own.set(record.taskId, { caller: task.caller, quotaKey, timer });
    return record;
  }

  async get(taskId: string, caller: string): Promise<Readonly<TaskRecord> | undefined> {
    const record = await this.#read(taskId);
    return record?.caller === caller ? record : undefined;
  }

  async list(caller: string, cursor?: string): Promise<TaskPage> {
    const after = cursor === undefined ? 0 : decodeTaskCursor(cursor);
    const { pageSize } = this.#options;
    const reply = (await readTolerant(this.#redis, this.#log, this.#index(caller), (client) =>
      client.sendCommand([
        'ZRANGEBYSCORE',
        this.#index(caller),
        `(${after}`,
        '+inf',
        'WITHSCORES',
        'LIMIT',
        '0',
        String(pageSize + 1),
      ]),
    )) as unknown[] | undefined;
    if (!reply) return { tasks: [] };
    // RESP3 answers [member, score] pairs; RESP2 a flat list.
    const entries = Array.isArray(reply[0])
      ? (reply as Array<[string, number]>)
      : Array.from(
          { length: reply.length / 2 },
          (_, i) => [reply[2 * i], reply[2 * i + 1]] as [string, number],
        );
    const page = entries.slice(0, pageSize);
    // Read together: one round trip for the page, not one per task.
    const records = await Promise.all(page.map(([taskId]) => this.get(String(taskId), caller)));
    const tasks = records.filter((record): record is Readonly<TaskRecord> => record !== undefined);
    if (entries.length <= pageSize) return { tasks };
    const last = page[page.length - 1];
    return { tasks, nextCursor: encodeTaskCursor(last ? Number(last[1]) : after) };
  }

  async transition(
    taskId: string,
    status: TaskStatus,
    details: TransitionDetails = {},
  ): Promise<Readonly<TaskRecord> | undefined> {
    const result = details.outcome?.kind === 'result' ? details.outcome.result : undefined;
    const max = this.#options.maxResultBytesPerCaller;
    const bytes = result ? (details.resultBytes ?? resultBytes(result)) : 0;
    // What the task keeps instead of a result past its client's budget (the script decides).
    const notKept = result
      ? JSON.stringify({
          kind: 'result',
          result: resultNotKept(
            bytes,
            `this client's tasks already hold @HELD@ of results, of the ${mebibytes(max)} one client may hold (counted for all its sessions, until their TTLs end)`,
          ),
        })
      : '';
    const reply = await this.#redis.run((client) =>
      client.sendCommand([
        'EVAL',
        TRANSITION,
        '1',
        this.#prefix + taskId,
        status,
        String(Date.now()),
        details.statusMessage === undefined ? '0' : '1',
        details.statusMessage ?? '',
        details.outcome ? JSON.stringify(details.outcome) : '',
        this.#lease.runningPrefix,
        details.inputRequests && status === 'input_required' ? JSON.stringify(details.inputRequests) : '',
        result ? String(bytes) : '',
        String(max),
        this.#prefix,
        this.#index(''),
        notKept,
      ]),
    );
    if (!Array.isArray(reply)) return undefined;
    const record = recordOf(pairs(reply));
    if (!record) return undefined;
    const event: TaskEvent = { type: 'status', task: record };
    this.#emit(event);
    // Every other instance hears it: their listen streams, and the one whose work must stop.
    void this.#redis
      .run((client) => client.publish(this.#channel, JSON.stringify({ from: this.instance, ...event })))
      .catch((error) => this.#log.debug(`store: publishing a task event: ${describeError(error)}`));
    return record;
  }

  async delete(taskId: string): Promise<void> {
    const own = this.#own.get(taskId);
    if (own) clearTimeout(own.timer);
    this.#own.delete(taskId);
    // Sent together (one round trip): this runs on every call answered directly.
    await this.#redis.run((client) =>
      Promise.all([
        client.sendCommand(['DEL', this.#prefix + taskId]),
        own ? client.sendCommand(['ZREM', this.#index(own.caller), taskId]) : undefined,
        own && own.quotaKey !== own.caller
          ? client.sendCommand(['ZREM', this.#index(own.quotaKey), taskId])
          : undefined,
        client.sendCommand(['SREM', this.#lease.runningKey, taskId]),
      ]),
    );
  }

  waitForTerminal(
    taskId: string,
    caller: string,
    signal?: AbortSignal,
  ): Promise<Readonly<TaskRecord> | undefined> {
    return waitForTerminal(this, taskId, caller, signal);
  }

  async relayAnswers(taskId: string, responses: Record<string, unknown>): Promise<void> {
    const message = JSON.stringify({ taskId, responses });
    await this.#redis.run((client) => client.publish(this.#answersChannel, message));
  }

  onAnswers(listener: (taskId: string, responses: Record<string, unknown>) => void): () => void {
    this.#answerListeners.add(listener);
    return () => this.#answerListeners.delete(listener);
  }

  subscribe(listener: (event: TaskEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Leaves the shared store: stops the heartbeat and fails the tasks still running here (their work
   * stops with this process). The connection is its opener's to close.
   */
  async close(): Promise<void> {
    for (const { timer } of this.#own.values()) clearTimeout(timer);
    this.#own.clear();
    await this.#lease.stop(
      'The bridge instance running this task shut down before it finished. Run the tool again.',
    );
    await this.#redis.subscriber.unsubscribe([this.#channel, this.#answersChannel]).catch(() => {});
    this.#listeners.clear();
    this.#answerListeners.clear();
  }

  // The task ids of a caller (what it lists) or of a quota key (what counts against its cap), by
  // creation order. The two name one key when the caller is its own quota key (authenticated);
  // callers (`session:…`, `anonymous`) and peer keys (`address:…`) never name each other's.
  #index(callerOrQuotaKey: string): string {
    return `${this.#prefix}of:${callerOrQuotaKey}`;
  }

  async #read(taskId: string): Promise<TaskRecord | undefined> {
    // Not an id this store issues: absent, without a read. A caller's `of:…` or `seq` would name
    // our own index or counter, and be warned about as a foreign value.
    if (!TASK_ID.test(taskId)) return undefined;
    const key = this.#prefix + taskId;
    const fields = await readTolerant(this.#redis, this.#log, key, (client) => client.hGetAll(key));
    if (!fields || Object.keys(fields).length === 0) return undefined;
    const record = recordOf(fields);
    if (!record) this.#log.warn(`store: ignoring a value under ${key} that this bridge did not write`);
    return record;
  }

  // An event published by another instance: checked like a stored value, then heard locally.
  #relay(message: string): void {
    let parsed: { from?: unknown; type?: unknown; task?: unknown };
    try {
      parsed = JSON.parse(message);
    } catch {
      parsed = {};
    }
    if (parsed.from === this.instance) return;
    const task = relayedRecord(parsed.task);
    if (parsed.type !== 'status' || !task) {
      this.#log.warn(`store: ignoring a message on ${this.#channel} that this bridge did not send`);
      return;
    }
    this.#emit({ type: 'status', task });
  }

  #relayedAnswers(message: string): void {
    let parsed: { taskId?: unknown; responses?: unknown } = {};
    try {
      parsed = JSON.parse(message);
    } catch {}
    const { taskId, responses } = parsed;
    if (typeof taskId !== 'string' || typeof responses !== 'object' || responses === null) {
      this.#log.warn(`store: ignoring a message on ${this.#answersChannel} that this bridge did not send`);
      return;
    }
    for (const listener of this.#answerListeners) listener(taskId, responses as Record<string, unknown>);
  }

  #expire(record: TaskRecord): void {
    this.#own.delete(record.taskId);
    void this.#redis
      .run((client) => client.sendCommand(['SREM', this.#lease.runningKey, record.taskId]))
      .catch(() => {});
    this.#emit({ type: 'expired', task: record });
  }

  #emit(event: TaskEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}
