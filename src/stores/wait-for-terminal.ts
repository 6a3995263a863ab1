import { isTerminal, type TaskRecord, type TaskStore } from '../tasks/task-store.js';

/** How often a shared store is read again while waiting, for changes no event reported (expiry). */
const RECHECK_MS = 1_000;

/**
 * `TaskStore.waitForTerminal` for a store whose changes may come from other processes: wakes on the
 * store's events, and reads the task again every second for what no event reports (its expiry).
 */
export async function waitForTerminal(
  store: Pick<TaskStore, 'get' | 'subscribe'>,
  taskId: string,
  caller: string,
  signal?: AbortSignal,
): Promise<Readonly<TaskRecord> | undefined> {
  const first = await store.get(taskId, caller);
  if (!first || isTerminal(first.status)) return first;
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (outcome: () => void) => {
      if (done) return;
      done = true;
      unsubscribe();
      clearInterval(timer);
      signal?.removeEventListener('abort', abort);
      outcome();
    };
    const unsubscribe = store.subscribe((event) => {
      if (event.task.taskId !== taskId || event.task.caller !== caller) return;
      if (event.type === 'expired') finish(() => resolve(undefined));
      else if (isTerminal(event.task.status)) finish(() => resolve(event.task));
    });
    const timer = setInterval(() => {
      store.get(taskId, caller).then(
        (task) => {
          if (!task || isTerminal(task.status)) finish(() => resolve(task));
        },
        () => {},
      );
    }, RECHECK_MS);
    timer.unref();
    const abort = () => finish(() => reject(signal?.reason));
    signal?.addEventListener('abort', abort, { once: true });
  });
}
