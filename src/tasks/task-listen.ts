import {
  CLIENT_CAPABILITIES_META_KEY,
  type ServerEvent,
  type ServerEventBus,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/server';
import { MAX_URI_CHARS } from '../request-bounds.js';

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const KEEP_ALIVE_MS = 15_000;
/**
 * Distinct task ids, and distinct resource URIs, one listen may ask for: as many tasks as one
 * caller may hold. Each id is looked up when the stream opens (in Redis, with a shared store), and
 * the acknowledgement names what is honored: a 4 MiB body of ids made hundreds of thousands of
 * lookups at once and an acknowledgement as large.
 */
const MAX_LISTEN_ENTRIES = 1_000;

/** Task changes, for `notifications/tasks` on 2026-07-28 `subscriptions/listen` streams. */
export interface TaskFeed {
  /** The task as `tasks/get` shows it, when it exists and belongs to `caller`. */
  current(
    taskId: string,
    caller: string,
  ): Promise<(Record<string, unknown> & { taskId: string }) | undefined>;
  /** Calls `listener` with the task's `DetailedTask` (as `tasks/get` shows it) on every change. */
  subscribe(
    listener: (caller: string, task: Record<string, unknown> & { taskId: string }) => void,
  ): () => void;
}

interface ListenRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: 'subscriptions/listen';
  params: {
    notifications: {
      taskIds?: unknown;
      toolsListChanged?: unknown;
      resourceSubscriptions?: unknown;
      [key: string]: unknown;
    };
    _meta?: Record<string, unknown>;
  };
}

/** A `subscriptions/listen` that asks for task notifications (SEP-2663's `taskIds`), which the SDK does not serve. */
export function asTaskListen(body: unknown): ListenRequest | undefined {
  const message = body as Partial<ListenRequest> | undefined;
  if (message?.method !== 'subscriptions/listen' || message.id === undefined) return undefined;
  const taskIds = message.params?.notifications?.taskIds;
  return Array.isArray(taskIds) && taskIds.length > 0 ? (message as ListenRequest) : undefined;
}

/**
 * Serves a `subscriptions/listen` stream that includes task notifications: the acknowledgement
 * names what is honored (the caller's own tasks among `taskIds`, tool-list changes, and resource
 * updates when the server offers subscriptions); then each task's current state, and each of its
 * changes, as a `notifications/tasks` carrying the task as `tasks/get` shows it, stamped with the
 * subscription id. A client that did not declare the
 * tasks extension is refused with -32021 (HTTP 400), as the extension requires.
 */
export async function serveTaskListen(
  message: ListenRequest,
  options: {
    feed: TaskFeed;
    bus: ServerEventBus;
    caller: string;
    resourceSubscriptions: boolean;
    signal: AbortSignal;
    keepAliveMs?: number;
  },
): Promise<Response> {
  const capabilities = message.params._meta?.[CLIENT_CAPABILITIES_META_KEY] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  if (capabilities?.extensions?.[TASKS_EXTENSION] === undefined) {
    const error = {
      code: -32021,
      message: `Task notifications belong to the tasks extension: declare ${TASKS_EXTENSION} in the request's clientCapabilities.`,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    };
    return Response.json({ jsonrpc: '2.0', id: message.id, error }, { status: 400 });
  }
  const requested = message.params.notifications;
  const wanted = distinctStrings(requested.taskIds);
  const uris = distinctStrings(requested.resourceSubscriptions);
  const refused =
    wanted.size > MAX_LISTEN_ENTRIES || uris.size > MAX_LISTEN_ENTRIES
      ? `A subscriptions/listen may ask for at most ${MAX_LISTEN_ENTRIES} task ids and ${MAX_LISTEN_ENTRIES} resource URIs; this one asks for ${wanted.size} and ${uris.size}. Listen to fewer on each stream.`
      : // The acknowledgement names them back whole.
        [...uris].some((uri) => uri.length > MAX_URI_CHARS)
        ? `A subscriptions/listen names resource URIs of at most ${MAX_URI_CHARS} characters.`
        : undefined;
  if (refused) {
    // In band, as the SDK's listen router answers a listen whose filter it refuses.
    const error = { code: -32602, message: refused };
    return Response.json({ jsonrpc: '2.0', id: message.id, error }, { status: 200 });
  }
  const current = (
    await Promise.all([...wanted].map((id) => options.feed.current(id, options.caller)))
  ).filter((task) => task !== undefined);
  const taskIds = new Set(current.map((task) => task.taskId));
  const honored: Record<string, unknown> = {};
  if (taskIds.size > 0) honored.taskIds = [...taskIds];
  if (requested.toolsListChanged === true) honored.toolsListChanged = true;
  if (options.resourceSubscriptions && uris.size > 0) honored.resourceSubscriptions = [...uris];

  const subscriptionId = message.id;
  const encoder = new TextEncoder();
  const cleanups: Array<() => void> = [];
  let closed = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (payload: Record<string, unknown>) => {
        if (!closed)
          controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(payload)}\n\n`));
      };
      const notify = (method: string, params: Record<string, unknown> = {}) =>
        write({
          jsonrpc: '2.0',
          method,
          params: {
            ...params,
            _meta: { ...(params._meta as object), [SUBSCRIPTION_ID_META_KEY]: subscriptionId },
          },
        });
      const close = () => {
        if (closed) return;
        closed = true;
        for (const cleanup of cleanups) cleanup();
        controller.close();
      };
      notify('notifications/subscriptions/acknowledged', { notifications: honored });
      if (Object.keys(honored).length === 0) {
        write({
          jsonrpc: '2.0',
          id: subscriptionId,
          result: { _meta: { [SUBSCRIPTION_ID_META_KEY]: subscriptionId } },
        });
        close();
        return;
      }
      // Each task's state now, so a change just before the stream opened is not missed.
      for (const task of current) notify('notifications/tasks', task);
      cleanups.push(
        options.feed.subscribe((caller, task) => {
          if (caller === options.caller && taskIds.has(task.taskId)) notify('notifications/tasks', task);
        }),
        options.bus.subscribe((event: ServerEvent) => {
          if (event.kind === 'tools_list_changed' && honored.toolsListChanged) {
            notify('notifications/tools/list_changed');
          } else if (
            event.kind === 'resource_updated' &&
            uris.has(event.uri) &&
            honored.resourceSubscriptions
          ) {
            notify('notifications/resources/updated', { ...event.params, uri: event.uri });
          }
        }),
      );
      const timer = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode(': keepalive\n\n'));
      }, options.keepAliveMs ?? KEEP_ALIVE_MS);
      timer.unref();
      cleanups.push(() => clearInterval(timer));
      if (options.signal.aborted) close();
      else options.signal.addEventListener('abort', close, { once: true });
    },
    cancel() {
      closed = true;
      for (const cleanup of cleanups) cleanup();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  });
}

/** The distinct strings of `value` when it is an array (other entries ignored), else none. */
function distinctStrings(value: unknown): Set<string> {
  return new Set(
    Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [],
  );
}
