import { randomBytes } from 'node:crypto';
import { mebibytes } from '../count-of.js';
import type { ToolResult } from '../tool.js';
import { MAX_RESULT_BYTES_PER_CALLER, resultBytes, resultNotKept } from './bound-result.js';
import {
  decodeTaskCursor,
  encodeTaskCursor,
  isTerminal,
  type NewTask,
  type TaskEvent,
  type TaskPage,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
  TaskStoreFullError,
  type TransitionDetails,
} from './task-store.js';

export interface MemoryTaskStoreOptions {
  /** Tasks kept at once, all callers together. Default 10,000. */
  maxTasks?: number;
  /** Tasks kept at once per quota key (`NewTask.quotaKey`, else the caller). Default 1,000. */
  maxTasksPerCaller?: number;
  /** Tasks per `tasks/list` page. Default 100. */
  pageSize?: number;
  /**
   * Bytes of results (their JSON) one quota key's finished tasks may hold at once; a result that
   * would pass it is kept as an `isError` result saying so. Default 16 MiB.
   */
  maxResultBytesPerCaller?: number;
  /**
   * Bytes of results held in all; past it, the quota key holding the most bytes loses its oldest
   * finished task. Default 64 MiB.
   */
  maxResultBytes?: number;
}

interface Entry {
  record: TaskRecord;
  /** Whose cap it counts against. */
  quotaKey: string;
  /** Creation order, for cursors. */
  seq: number;
  timer: NodeJS.Timeout;
  /** Bytes of its result, once it has one (see `resultBytes`). */
  resultBytes: number;
}

/**
 * The in-memory `TaskStore`: one process, tasks lost on restart. Each task is dropped by a timer at
 * the end of its TTL. At a cap (a quota key's, or the store's), a finished task makes room: the
 * quota key's own oldest, or at the store's cap the oldest of the key holding the most, so that one
 * client filling the store evicts its own tasks, not others'. When those are all still running,
 * creation fails rather than evicting work in progress. Results are bounded in bytes the same way.
 */
export class MemoryTaskStore implements TaskStore {
  readonly #entries = new Map<string, Entry>();
  /** Per caller (for listing), in creation order (Map keeps insertion order). */
  readonly #byCaller = new Map<string, Map<string, Entry>>();
  /** Per quota key (for its cap), in creation order. */
  readonly #byQuota = new Map<string, Map<string, Entry>>();
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #listeners = new Set<(event: TaskEvent) => void>();
  readonly #answerListeners = new Set<(taskId: string, responses: Record<string, unknown>) => void>();
  /** Bytes of results each quota key holds. */
  readonly #bytesByQuota = new Map<string, number>();
  readonly #options: Required<MemoryTaskStoreOptions>;
  #seq = 0;
  #resultBytes = 0;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#options = {
      maxTasks: 10_000,
      maxTasksPerCaller: 1_000,
      pageSize: 100,
      maxResultBytesPerCaller: MAX_RESULT_BYTES_PER_CALLER,
      maxResultBytes: 4 * MAX_RESULT_BYTES_PER_CALLER,
      ...options,
    };
  }

  /** Tasks held right now (for tests and benchmarks). */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes of results held right now (for tests and benchmarks). */
  get resultBytes(): number {
    return this.#resultBytes;
  }

  async create(task: NewTask): Promise<Readonly<TaskRecord>> {
    const quotaKey = task.quotaKey ?? task.caller;
    const own = this.#byQuota.get(quotaKey);
    if (own && own.size >= this.#options.maxTasksPerCaller && !this.#evictFinished(own.values())) {
      throw new TaskStoreFullError(
        `Too many tasks: this client already has ${own.size} unfinished tasks (the limit is ${this.#options.maxTasksPerCaller}). Wait for some to finish or cancel them.`,
      );
    }
    if (
      this.#entries.size >= this.#options.maxTasks &&
      !this.#evictFromLargest((_, entries) => entries.size)
    ) {
      throw new TaskStoreFullError(
        `Too many tasks: the server holds ${this.#entries.size} unfinished tasks (the limit is ${this.#options.maxTasks}). Try again later.`,
      );
    }
    const now = Date.now();
    const record: TaskRecord = {
      // 128 random bits: unguessable, so an id found nowhere else cannot be probed.
      taskId: randomBytes(16).toString('base64url'),
      caller: task.caller,
      toolName: task.toolName,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: task.ttlMs,
      pollIntervalMs: task.pollIntervalMs,
    };
    const timer = setTimeout(() => this.#expire(record.taskId), task.ttlMs);
    timer.unref();
    const entry: Entry = { record, quotaKey, seq: ++this.#seq, timer, resultBytes: 0 };
    this.#entries.set(record.taskId, entry);
    index(this.#byCaller, task.caller, entry);
    index(this.#byQuota, quotaKey, entry);
    return record;
  }

  async get(taskId: string, caller: string): Promise<Readonly<TaskRecord> | undefined> {
    const entry = this.#entries.get(taskId);
    return entry && entry.record.caller === caller ? entry.record : undefined;
  }

  async list(caller: string, cursor?: string): Promise<TaskPage> {
    const after = cursor === undefined ? 0 : decodeTaskCursor(cursor);
    const tasks: TaskRecord[] = [];
    let last = 0;
    let more = false;
    for (const entry of this.#byCaller.get(caller)?.values() ?? []) {
      if (entry.seq <= after) continue;
      if (tasks.length === this.#options.pageSize) {
        more = true;
        break;
      }
      tasks.push(entry.record);
      last = entry.seq;
    }
    return more ? { tasks, nextCursor: encodeTaskCursor(last) } : { tasks };
  }

  async transition(
    taskId: string,
    status: TaskStatus,
    details: TransitionDetails = {},
  ): Promise<Readonly<TaskRecord> | undefined> {
    const entry = this.#entries.get(taskId);
    const record = entry?.record;
    if (!entry || !record || isTerminal(record.status)) return undefined;
    // Held before the status changes, so that making room never evicts this very task.
    const kept =
      details.outcome?.kind === 'result'
        ? this.#hold(entry, details.outcome.result, details.resultBytes)
        : undefined;
    record.status = status;
    record.lastUpdatedAt = Date.now();
    if (details.statusMessage === undefined) delete record.statusMessage;
    else record.statusMessage = details.statusMessage;
    if (kept) {
      record.outcome = { kind: 'result', result: kept };
      if (kept.isError) record.statusMessage ??= 'The tool reported an error.';
    } else if (details.outcome) record.outcome = details.outcome;
    if (details.inputRequests && status === 'input_required') record.inputRequests = details.inputRequests;
    else delete record.inputRequests;
    this.#emit({ type: 'status', task: record });
    if (isTerminal(status)) this.#wake(taskId);
    return record;
  }

  async delete(taskId: string): Promise<void> {
    this.#drop(taskId);
  }

  waitForTerminal(
    taskId: string,
    caller: string,
    signal?: AbortSignal,
  ): Promise<Readonly<TaskRecord> | undefined> {
    const record = this.#entries.get(taskId)?.record;
    if (!record || record.caller !== caller) return Promise.resolve(undefined);
    if (isTerminal(record.status)) return Promise.resolve(record);
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      let waiters = this.#waiters.get(taskId);
      if (!waiters) {
        waiters = new Set();
        this.#waiters.set(taskId, waiters);
      }
      const wake = () => {
        signal?.removeEventListener('abort', abort);
        resolve(this.#entries.get(taskId)?.record);
      };
      const abort = () => {
        this.#waiters.get(taskId)?.delete(wake);
        reject(signal?.reason);
      };
      waiters.add(wake);
      signal?.addEventListener('abort', abort, { once: true });
    });
  }

  async relayAnswers(taskId: string, responses: Record<string, unknown>): Promise<void> {
    for (const listener of this.#answerListeners) listener(taskId, responses);
  }

  onAnswers(listener: (taskId: string, responses: Record<string, unknown>) => void): () => void {
    this.#answerListeners.add(listener);
    return () => this.#answerListeners.delete(listener);
  }

  subscribe(listener: (event: TaskEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    for (const taskId of [...this.#entries.keys()]) this.#drop(taskId);
    this.#listeners.clear();
  }

  #expire(taskId: string): void {
    const record = this.#drop(taskId);
    if (record) this.#emit({ type: 'expired', task: record });
  }

  // The result to keep for `entry`, counted against its quota key: `result` when it fits the key's
  // budget (making room in the store's total from the largest holders), else an error saying why.
  #hold(entry: Entry, result: ToolResult, measured: number | undefined): ToolResult {
    const bytes = measured ?? resultBytes(result);
    const { maxResultBytesPerCaller, maxResultBytes } = this.#options;
    const held = this.#bytesByQuota.get(entry.quotaKey) ?? 0;
    if (held + bytes > maxResultBytesPerCaller) {
      return resultNotKept(
        bytes,
        `this client's finished tasks already hold ${mebibytes(held)} of results, of the ${mebibytes(maxResultBytesPerCaller)} one client may hold (counted for all its sessions, until their TTLs end)`,
      );
    }
    while (
      this.#resultBytes + bytes > maxResultBytes &&
      this.#evictFromLargest((key) => this.#bytesByQuota.get(key) ?? 0)
    ) {}
    if (this.#resultBytes + bytes > maxResultBytes) {
      return resultNotKept(
        bytes,
        `the server holds ${mebibytes(this.#resultBytes)} of task results, its limit`,
      );
    }
    entry.resultBytes = bytes;
    this.#resultBytes += bytes;
    this.#bytesByQuota.set(entry.quotaKey, held + bytes);
    return result;
  }

  // Drops the oldest finished task among `entries`; false when all of them are still running.
  #evictFinished(entries: Iterable<Entry>): boolean {
    for (const entry of entries) {
      if (isTerminal(entry.record.status)) {
        this.#drop(entry.record.taskId);
        return true;
      }
    }
    return false;
  }

  // Drops the oldest finished task of the quota key holding the most (by `measure`), or of the next
  // largest when all of that key's tasks are still running: the client filling the store makes room
  // with its own tasks, never with those of a client holding little. False when nothing is finished.
  #evictFromLargest(measure: (key: string, entries: Map<string, Entry>) => number): boolean {
    const bySize = [...this.#byQuota].map(([key, entries]) => ({ entries, size: measure(key, entries) }));
    bySize.sort((a, b) => b.size - a.size);
    for (const { entries, size } of bySize) {
      if (size > 0 && this.#evictFinished(entries.values())) return true;
    }
    return false;
  }

  #drop(taskId: string): TaskRecord | undefined {
    const entry = this.#entries.get(taskId);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.#entries.delete(taskId);
    if (entry.resultBytes > 0) {
      this.#resultBytes -= entry.resultBytes;
      const left = (this.#bytesByQuota.get(entry.quotaKey) ?? 0) - entry.resultBytes;
      if (left > 0) this.#bytesByQuota.set(entry.quotaKey, left);
      else this.#bytesByQuota.delete(entry.quotaKey);
    }
    unindex(this.#byCaller, entry.record.caller, taskId);
    unindex(this.#byQuota, entry.quotaKey, taskId);
    this.#wake(taskId);
    return entry.record;
  }

  #wake(taskId: string): void {
    const waiters = this.#waiters.get(taskId);
    this.#waiters.delete(taskId);
    for (const wake of waiters ?? []) wake();
  }

  #emit(event: TaskEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

function index(by: Map<string, Map<string, Entry>>, key: string, entry: Entry): void {
  let entries = by.get(key);
  if (!entries) {
    entries = new Map();
    by.set(key, entries);
  }
  entries.set(entry.record.taskId, entry);
}

function unindex(by: Map<string, Map<string, Entry>>, key: string, taskId: string): void {
  const entries = by.get(key);
  entries?.delete(taskId);
  if (entries?.size === 0) by.delete(key);
}
