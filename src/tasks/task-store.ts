import { BridgeError } from '../errors.js';
import { quote } from '../quote-input.js';
import type { ToolResult } from '../tool.js';

/**
 * Where a task stands. `completed`, `failed` and `cancelled` are terminal: a task never leaves them.
 * A tool result with `isError` is `completed`; `failed` is for protocol errors only.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#task-status-lifecycle
 */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A JSON-RPC error, as a failed task keeps it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** A question a waiting task's tool asked the client, as 2026-07-28 `tasks/get` shows it. */
export interface TaskInputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** What a transition may set besides the status. */
export interface TransitionDetails {
  statusMessage?: string;
  outcome?: TaskOutcome;
  /** The questions an `input_required` task waits on (dropped by any other transition). */
  inputRequests?: Record<string, TaskInputRequest>;
  /** The bytes of `outcome`'s result (see `resultBytes`), when the caller measured them already. */
  resultBytes?: number;
}

/** How a task ended: the tool's result (a `completed` task) or a protocol error (a `failed` one). */
export type TaskOutcome = { kind: 'result'; result: ToolResult } | { kind: 'error'; error: TaskError };

/** One task as stored. Era-neutral: the handlers of each protocol era render it on the wire. */
export interface TaskRecord {
  /** High-entropy and unguessable: when no caller identity exists, the id is the only protection. */
  readonly taskId: string;
  /** Who created it (see `callerOf`); nobody else can read, list or cancel it. */
  readonly caller: string;
  /** The tool it runs, for logs and listings. */
  readonly toolName: string;
  status: TaskStatus;
  statusMessage?: string;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  lastUpdatedAt: number;
  /** Lifetime from creation; after it the task and its result are dropped. */
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** Set once the task is terminal (absent for `cancelled`). */
  outcome?: TaskOutcome;
  /** While `input_required`: the questions, so that any instance can show them. */
  inputRequests?: Record<string, TaskInputRequest>;
}

/** What `TaskStore.create` needs. */
export interface NewTask {
  /** Who owns the task: only this caller reads, lists and cancels it. */
  caller: string;
  /**
   * Whose per-caller cap the task counts against (default `caller`): for an anonymous HTTP client
   * its peer address (see `quotaKeyOf`), so that tasks of many sessions from one address add up.
   */
  quotaKey?: string;
  toolName: string;
  ttlMs: number;
  pollIntervalMs: number;
}

/** A change the store reports: a status transition, or a task dropped at the end of its TTL. */
export type TaskEvent =
  | { type: 'status'; task: Readonly<TaskRecord> }
  | { type: 'expired'; task: Readonly<TaskRecord> };

/** One page of a caller's tasks, oldest first. */
export interface TaskPage {
  tasks: Readonly<TaskRecord>[];
  nextCursor?: string;
}

/**
 * Keeps tasks and their results, bound to their callers, for their TTL. Transport- and
 * era-independent, and asynchronous so that several server instances can share one store
 * (`RedisTaskStore`); the work itself (processes, abort signals) stays with the instance that runs
 * it, which hears of a cancel made elsewhere through `subscribe`. Any method may reject with a
 * `BridgeError` coded `unavailable` when a shared store cannot be reached.
 *
 * Every read takes the caller: a task of another caller is reported as absent, never as forbidden,
 * so ids cannot be probed.
 */
export interface TaskStore {
  /**
   * Creates a `working` task. Throws a `TaskStoreFullError` when the task's quota key, or the whole
   * store, is at its cap and no finished task of theirs can make room.
   */
  create(task: NewTask): Promise<Readonly<TaskRecord>>;
  /** The task, when it exists, has not expired and belongs to `caller`. */
  get(taskId: string, caller: string): Promise<Readonly<TaskRecord> | undefined>;
  /** The caller's tasks, oldest first. Throws `InvalidCursorError` for a cursor it did not issue. */
  list(caller: string, cursor?: string): Promise<TaskPage>;
  /**
   * Moves a task to `status` (with its outcome when terminal). Returns the updated task, or
   * `undefined` when the task is gone or already terminal: the first terminal status wins.
   */
  transition(
    taskId: string,
    status: TaskStatus,
    details?: TransitionDetails,
  ): Promise<Readonly<TaskRecord> | undefined>;
  /** Drops a task at once, without an event: for a call answered directly before its task was shown. */
  delete(taskId: string): Promise<void>;
  /** Resolves once the task is terminal (with it), or gone (`undefined`), or `signal` aborts (rejects). */
  waitForTerminal(
    taskId: string,
    caller: string,
    signal?: AbortSignal,
  ): Promise<Readonly<TaskRecord> | undefined>;
  /** Calls `listener` on every transition and expiry; returns the unsubscribe function. */
  subscribe(listener: (event: TaskEvent) => void): () => void;
  /**
   * Hands `tasks/update` answers to whichever process runs the task (its questions live there):
   * every `onAnswers` listener of every process sharing the store hears them.
   */
  relayAnswers(taskId: string, responses: Record<string, unknown>): Promise<void>;
  /** Calls `listener` with the answers relayed for a task; returns the unsubscribe function. */
  onAnswers(listener: (taskId: string, responses: Record<string, unknown>) => void): () => void;
  /** Releases what this process holds: the memory store drops every task and timer. */
  close(): Promise<void>;
}

/** The store is at its memory cap and every task in it is still running (`capacity`). */
export class TaskStoreFullError extends BridgeError {
  constructor(message: string) {
    super('capacity', message);
  }
}

/** A `tasks/list` cursor this store did not issue, or issued for another caller (`invalid_params`). */
export class InvalidCursorError extends BridgeError {
  constructor(message: string) {
    super('invalid_params', message);
  }
}

/**
 * A `tasks/list` cursor: the creation sequence number of the last task of the page, opaque to
 * clients. Both stores number their tasks so, and write and read cursors alike.
 */
export function encodeTaskCursor(seq: number): string {
  return Buffer.from(`t${seq}`).toString('base64url');
}

/** The sequence number a cursor of `encodeTaskCursor` carries; throws `InvalidCursorError` for any other. */
export function decodeTaskCursor(cursor: string): number {
  const match =
    cursor.length <= MAX_TASK_CURSOR_CHARS
      ? /^t(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString())
      : undefined;
  if (!match?.[1]) {
    throw new InvalidCursorError(
      `Invalid cursor: ${quote(cursor)} was not issued by tasks/list. Send back a nextCursor exactly as received, or list from the start without a cursor.`,
    );
  }
  return Number(match[1]);
}

/** Longer than any cursor `encodeTaskCursor` writes (22 characters for 15 digits). */
const MAX_TASK_CURSOR_CHARS = 32;

/** Whether no further transition can happen. */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
