import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MemoryTaskStore } from '../../src/tasks/memory-task-store.js';
import { InvalidCursorError, type TaskEvent, TaskStoreFullError } from '../../src/tasks/task-store.js';

const newTask = (caller = 'session:a', ttlMs = 60_000) => ({
  caller,
  toolName: 'tool',
  ttlMs,
  pollIntervalMs: 500,
});
const result = { kind: 'result' as const, result: { content: [{ type: 'text' as const, text: 'ok' }] } };

describe('MemoryTaskStore', () => {
  it('creates working tasks with distinct 128-bit ids', async () => {
    const store = new MemoryTaskStore();
    const tasks = await Promise.all(Array.from({ length: 200 }, () => store.create(newTask())));
    const ids = new Set(tasks.map((task) => task.taskId));
    expect(ids.size).toBe(200);
    for (const task of tasks) {
      expect(task.status).toBe('working');
      expect(Buffer.from(task.taskId, 'base64url')).toHaveLength(16);
    }
    store.close();
  });

  it('shows a task only to its caller', async () => {
    const store = new MemoryTaskStore();
    const task = await store.create(newTask('session:a'));
    expect(await store.get(task.taskId, 'session:a')).toBe(task);
    expect(await store.get(task.taskId, 'session:b')).toBeUndefined();
    expect((await store.list('session:b')).tasks).toEqual([]);
    expect(await store.waitForTerminal(task.taskId, 'session:b')).toBeUndefined();
    store.close();
  });

  it('never leaves a terminal status, and reports each transition once', async () => {
    const store = new MemoryTaskStore();
    const events: TaskEvent[] = [];
    store.subscribe((event) => events.push({ ...event, task: { ...event.task } }));
    const task = await store.create(newTask());
    const waiting = store.waitForTerminal(task.taskId, 'session:a');
    expect(await store.transition(task.taskId, 'input_required')).toMatchObject({ status: 'input_required' });
    expect(await store.transition(task.taskId, 'cancelled')).toMatchObject({ status: 'cancelled' });
    expect(await store.transition(task.taskId, 'completed', { outcome: result })).toBeUndefined();
    expect(await waiting).toMatchObject({ status: 'cancelled' });
    const stored = await store.get(task.taskId, 'session:a');
    expect(stored?.status).toBe('cancelled');
    expect(stored?.outcome).toBeUndefined();
    expect(events.map((event) => event.task.status)).toEqual(['input_required', 'cancelled']);
    store.close();
  });

  it('drops a task at the end of its TTL and wakes its waiters', async () => {
    const store = new MemoryTaskStore();
    const expired: string[] = [];
    store.subscribe((event) => event.type === 'expired' && expired.push(event.task.taskId));
    const task = await store.create(newTask('session:a', 50));
    const waiting = store.waitForTerminal(task.taskId, 'session:a');
    await sleep(120);
    expect(await waiting).toBeUndefined();
    expect(await store.get(task.taskId, 'session:a')).toBeUndefined();
    expect(expired).toEqual([task.taskId]);
    expect(store.size).toBe(0);
    store.close();
  });

  it('pages a caller’s tasks in creation order and refuses cursors it did not issue', async () => {
    const store = new MemoryTaskStore({ pageSize: 2 });
    const created = [];
    for (let i = 0; i < 5; i++) created.push((await store.create(newTask())).taskId);
    await store.create(newTask('session:other'));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.list('session:a', cursor);
      seen.push(...page.tasks.map((task) => task.taskId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(created);
    expect(pages).toBe(3);
    await expect(store.list('session:a', 'not-a-cursor')).rejects.toBeInstanceOf(InvalidCursorError);
    store.close();
  });

  it('makes room by evicting the oldest finished task, and refuses when all are running', async () => {
    const store = new MemoryTaskStore({ maxTasksPerCaller: 2, maxTasks: 3 });
    const first = await store.create(newTask());
    const second = await store.create(newTask());
    await expect(store.create(newTask())).rejects.toBeInstanceOf(TaskStoreFullError);
    await store.transition(first.taskId, 'completed', { outcome: result });
    const third = await store.create(newTask());
    expect(await store.get(first.taskId, 'session:a')).toBeUndefined();
    expect(await store.get(second.taskId, 'session:a')).toBeDefined();
    expect(await store.get(third.taskId, 'session:a')).toBeDefined();
    // The global cap counts every caller.
    await store.create(newTask('session:b'));
    await expect(store.create(newTask('session:c'))).rejects.toThrow(/the limit is 3/);
    expect(store.size).toBe(3);
    store.close();
  });

  it('at the store’s cap, makes room with the largest holder’s finished tasks, never a small holder’s', async () => {
    const store = new MemoryTaskStore({ maxTasksPerCaller: 5, maxTasks: 6 });
    const victim = await store.create(newTask('session:victim'));
    await store.transition(victim.taskId, 'completed', { outcome: result });
    // Another client fills the store with quick tasks from three addresses, each under its own cap.
    const flood = (n: number) => ({ ...newTask(`session:flood${n}`), quotaKey: `address:10.0.0.${n % 3}` });
    for (let i = 0; i < 20; i++) {
      const task = await store.create(flood(i));
      await store.transition(task.taskId, 'completed', { outcome: result });
    }
    expect(store.size).toBe(6);
    // The victim's finished task, the oldest in the store, is still there and still its result.
    expect((await store.get(victim.taskId, 'session:victim'))?.outcome).toEqual(result);
    store.close();
  });

  it('bounds the bytes of results a quota key holds, keeping an error that says so instead', async () => {
    const store = new MemoryTaskStore({ maxResultBytesPerCaller: 100_000, maxResultBytes: 200_000 });
    const big = (text: string) => ({
      kind: 'result' as const,
      result: { content: [{ type: 'text' as const, text }] },
    });
    const shared = (caller: string) => ({ ...newTask(caller), quotaKey: 'address:10.0.0.1' });
    const first = await store.create(shared('session:a'));
    await store.transition(first.taskId, 'completed', { outcome: big('x'.repeat(60_000)) });
    // A second session of the same address: over the address's budget, its result is not held.
    const second = await store.create(shared('session:b'));
    await store.transition(second.taskId, 'completed', { outcome: big('y'.repeat(60_000)) });
    const refused = await store.get(second.taskId, 'session:b');
    expect(refused?.status).toBe('completed');
    expect(refused?.outcome?.kind === 'result' && refused.outcome.result.isError).toBe(true);
    const text = JSON.stringify(refused?.outcome);
    expect(text).toMatch(/60\d{3} bytes/);
    expect(text).toContain('0.1 MiB one client may hold');
    expect(store.resultBytes).toBeLessThan(70_000);
    // Another address still gets its result; when the total is full, the largest holder pays.
    const other = await store.create({ ...newTask('session:c'), quotaKey: 'address:10.0.0.2' });
    await store.transition(other.taskId, 'completed', { outcome: big('z'.repeat(90_000)) });
    const third = await store.create({ ...newTask('session:d'), quotaKey: 'address:10.0.0.3' });
    await store.transition(third.taskId, 'completed', { outcome: big('w'.repeat(90_000)) });
    expect(JSON.stringify((await store.get(third.taskId, 'session:d'))?.outcome)).toContain('w'.repeat(100));
    expect(await store.get(first.taskId, 'session:a')).toBeDefined();
    expect(await store.get(other.taskId, 'session:c')).toBeUndefined();
    expect(store.resultBytes).toBeLessThanOrEqual(200_000);
    // Dropping tasks gives their bytes back.
    store.close();
    expect(store.resultBytes).toBe(0);
  });

  it('counts the tasks of callers sharing a quota key together; each still sees only its own', async () => {
    const store = new MemoryTaskStore({ maxTasksPerCaller: 2 });
    const shared = (caller: string) => ({ ...newTask(caller), quotaKey: 'address:10.0.0.1' });
    const first = await store.create(shared('session:a'));
    await store.create(shared('session:b'));
    await expect(store.create(shared('session:c'))).rejects.toThrow(TaskStoreFullError);
    // Another address is not held back by this one.
    await expect(
      store.create({ ...newTask('session:d'), quotaKey: 'address:10.0.0.2' }),
    ).resolves.toBeDefined();
    expect((await store.list('session:a')).tasks.map((task) => task.taskId)).toEqual([first.taskId]);
    expect(await store.get(first.taskId, 'session:b')).toBeUndefined();
    // A finished task of the key makes room, whichever of its callers created it.
    await store.transition(first.taskId, 'completed', { outcome: result });
    await expect(store.create(shared('session:c'))).resolves.toBeDefined();
    expect((await store.list('session:a')).tasks).toEqual([]);
    expect(store.size).toBe(3);
    store.close();
  });

  it('deletes a task at once, without an event', async () => {
    const store = new MemoryTaskStore();
    const events: TaskEvent[] = [];
    store.subscribe((event) => events.push(event));
    const task = await store.create(newTask());
    await store.delete(task.taskId);
    expect(await store.get(task.taskId, 'session:a')).toBeUndefined();
    expect(store.size).toBe(0);
    expect(events).toEqual([]);
    store.close();
  });

  it('rejects a waiter whose signal aborts, leaving the task alone', async () => {
    const store = new MemoryTaskStore();
    const task = await store.create(newTask());
    const controller = new AbortController();
    const waiting = store.waitForTerminal(task.taskId, 'session:a', controller.signal);
    controller.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    expect((await store.get(task.taskId, 'session:a'))?.status).toBe('working');
    store.close();
  });

  it('keeps the questions of a waiting task until it moves on, and relays answers to its listeners', async () => {
    const store = new MemoryTaskStore();
    const task = await store.create(newTask());
    const inputRequests = { who: { method: 'elicitation/create', params: { message: 'Who?' } } };
    await store.transition(task.taskId, 'input_required', { inputRequests });
    expect((await store.get(task.taskId, 'session:a'))?.inputRequests).toEqual(inputRequests);
    await store.transition(task.taskId, 'working');
    expect((await store.get(task.taskId, 'session:a'))?.inputRequests).toBeUndefined();
    const heard: unknown[] = [];
    const stop = store.onAnswers((taskId, responses) => heard.push([taskId, responses]));
    await store.relayAnswers(task.taskId, { who: { action: 'decline' } });
    stop();
    await store.relayAnswers(task.taskId, {});
    expect(heard).toEqual([[task.taskId, { who: { action: 'decline' } }]]);
    store.close();
  });
});
