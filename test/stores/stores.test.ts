// The two implementations of each store interface against the same expectations: memory, and
// Redis (a real redis-server started here). Then what only a shared store meets: values under our
// keys that we did not write, and events from other instances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/logger.js';
import { MemoryResourceStore, type ResourceStore } from '../../src/resource-store.js';
import { openStores, type SharedStores } from '../../src/stores/open-stores.js';
import type { TaskEvent } from '../../src/tasks/task-store.js';
import { MISSING_BINARIES, startRedis, type TestRedis } from '../helpers/deployment.js';
import { eventually } from '../tasks/helpers.js';

/** A logger that keeps its warnings, so that tests can check what was reported. */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    warnings,
    debug() {},
    info() {},
    warn: (message: string) => warnings.push(message),
    error() {},
  };
}

let redis: TestRedis | undefined;
const opened: SharedStores[] = [];
beforeAll(async () => {
  if (!MISSING_BINARIES) redis = await startRedis();
});
afterAll(async () => {
  await Promise.allSettled(opened.map((stores) => stores.close()));
  await redis?.[Symbol.asyncDispose]();
});

let namespaces = 0;
async function shared(log: Logger = recordingLogger(), quota = 100): Promise<SharedStores> {
  // Each test its own namespace: the stores of one test never see another's keys.
  const url = `${redis?.url}?namespace=t${++namespaces}`;
  const stores = await openStores(url, log, {
    resources: { maxBytesPerCaller: quota },
    tasks: { heartbeatMs: 200, leaseMs: 1_000 },
  });
  opened.push(stores);
  return stores;
}

const kinds: Array<{
  kind: string;
  skip: string | undefined;
  resources(quota: number): Promise<ResourceStore>;
}> = [
  {
    kind: 'memory',
    skip: undefined,
    resources: async (quota) => new MemoryResourceStore({ maxBytes: quota * 4, maxBytesPerCaller: quota }),
  },
  {
    kind: 'redis',
    skip: MISSING_BINARIES,
    resources: async (quota) => (await shared(undefined, quota)).resources,
  },
];

describe.each(kinds)('the $kind resource store', ({ skip, resources }) => {
  it.skipIf(skip)('keeps text and bytes for their caller only', async () => {
    const store = await resources(1_000);
    const text = await store.put({ name: 'a', mimeType: 'text/plain', text: 'secret' }, 'alice');
    const blob = await store.put(
      { name: 'b', mimeType: 'image/png', bytes: new Uint8Array([0, 255, 10]) },
      'alice',
    );
    expect(text.size).toBe(6);
    expect(await store.read(text.uri, 'alice')).toEqual({
      uri: text.uri,
      mimeType: 'text/plain',
      text: 'secret',
    });
    expect(await store.read(blob.uri, 'alice')).toMatchObject({ blob: 'AP8K' });
    expect(await store.read(text.uri, 'bob')).toBeUndefined();
    expect(await store.has(text.uri, 'alice')).toBe(true);
    expect(await store.has(text.uri, 'bob')).toBe(false);
    expect((await store.list('alice')).map((entry) => entry.uri)).toEqual([text.uri, blob.uri]);
    expect(await store.list('bob')).toEqual([]);
  });

  it.skipIf(skip)(
    'makes a caller over its quota lose its own oldest entries, never another caller’s',
    async () => {
      const store = await resources(100);
      const bobs = await store.put({ name: 'bob', mimeType: 'text/plain', text: 'b'.repeat(60) }, 'bob');
      const first = await store.put({ name: 'one', mimeType: 'text/plain', text: 'x'.repeat(60) }, 'alice');
      const second = await store.put({ name: 'two', mimeType: 'text/plain', text: 'y'.repeat(60) }, 'alice');
      expect(await store.read(first.uri, 'alice')).toBeUndefined();
      expect(await store.read(second.uri, 'alice')).toBeDefined();
      expect(await store.read(bobs.uri, 'bob')).toBeDefined();
      expect((await store.list('alice')).map((entry) => entry.name)).toEqual(['two']);
    },
  );

  it.skipIf(skip)('refuses an entry larger than a caller may hold, keeping what the caller has', async () => {
    const store = await resources(100);
    const kept = await store.put({ name: 'one', mimeType: 'text/plain', text: 'x'.repeat(60) }, 'alice');
    await expect(
      store.put({ name: 'huge', mimeType: 'text/plain', text: 'y'.repeat(101) }, 'alice'),
    ).rejects.toThrow("the output is 101 bytes, more than the 100 bytes one caller's outputs may hold");
    expect((await store.list('alice')).map((entry) => entry.uri)).toEqual([kept.uri]);
  });
});

describe.each(kinds)('the $kind resource store, callers sharing a quota key', ({ skip, resources }) => {
  it.skipIf(skip)('counts them together: over it the key’s oldest go, whoever wrote them', async () => {
    const store = await resources(100);
    const put = (name: string, caller: string, quotaKey: string) =>
      store.put({ name, mimeType: 'text/plain', text: name[0]?.repeat(40) ?? '' }, caller, quotaKey);
    const other = await put('other', 'session:z', 'address:10.0.0.2');
    const first = await put('first', 'session:a', 'address:10.0.0.1');
    const second = await put('second', 'session:b', 'address:10.0.0.1');
    const third = await put('third', 'session:c', 'address:10.0.0.1');
    expect(await store.read(first.uri, 'session:a')).toBeUndefined();
    expect(await store.read(second.uri, 'session:b')).toBeDefined();
    expect(await store.read(third.uri, 'session:c')).toBeDefined();
    expect(await store.read(other.uri, 'session:z')).toBeDefined();
    // Each caller still reads and lists only its own.
    expect(await store.read(second.uri, 'session:c')).toBeUndefined();
    expect(await store.list('session:a')).toEqual([]);
    expect((await store.list('session:b')).map((entry) => entry.name)).toEqual(['second']);
  });
});

describe('the memory resource store', () => {
  it('expires entries after the TTL', async () => {
    let now = 0;
    const store = new MemoryResourceStore({ ttlMs: 1000, now: () => now });
    const stored = await store.put({ name: 'a', mimeType: 'text/plain', text: 'hello' }, 'me');
    expect(await store.read(stored.uri, 'me')).toMatchObject({ text: 'hello' });
    now = 1001;
    expect(await store.read(stored.uri, 'me')).toBeUndefined();
    expect(await store.list('me')).toEqual([]);
  });

  it('when full in all, takes from the caller holding the most', async () => {
    const store = new MemoryResourceStore({ maxBytes: 100, maxBytesPerCaller: 60 });
    const big = await store.put({ name: 'big', mimeType: 'text/plain', text: 'b'.repeat(50) }, 'bob');
    const small = await store.put({ name: 'small', mimeType: 'text/plain', text: 'c'.repeat(20) }, 'carol');
    await store.put({ name: 'new', mimeType: 'text/plain', text: 'a'.repeat(40) }, 'alice');
    expect(await store.read(big.uri, 'bob')).toBeUndefined();
    expect(await store.read(small.uri, 'carol')).toBeDefined();
    expect(store.bytes).toBe(60);
  });
});

describe.skipIf(MISSING_BINARIES)('the Redis stores', () => {
  it('let Redis expire a page at the end of its TTL', async () => {
    const url = `${redis?.url}?namespace=ttl${++namespaces}`;
    const stores = await openStores(url, recordingLogger(), { resources: { ttlMs: 300 } });
    opened.push(stores);
    const stored = await stores.resources.put({ name: 'a', mimeType: 'text/plain', text: 'soon gone' }, 'me');
    expect(await stores.resources.read(stored.uri, 'me')).toMatchObject({ text: 'soon gone' });
    await eventually(async () => ((await stores.resources.read(stored.uri, 'me')) ? undefined : true));
    expect(await redis?.command('EXISTS', `ttl${namespaces}:res:${stored.uri}`)).toBe(0);
  });

  it('ignore values under their keys that they did not write, with a warning', async () => {
    const log = recordingLogger();
    const stores = await shared(log);
    const ns = `t${namespaces}`;
    await redis?.command('SET', `${ns}:res:bridge://output/planted/page/2`, 'not ours');
    await redis?.command('HSET', `${ns}:res:bridge://output/odd/page/2`, 'caller', 'me', 'meta', '{oops');
    // Planted under ids of the shape the store issues, so that it reads them.
    const planted = 'planted_task_id_000000';
    const half = 'half_task_id_000000000';
    await redis?.command('SET', `${ns}:task:${planted}`, '{"status":"working"}');
    await redis?.command('HSET', `${ns}:task:${half}`, 'caller', 'me', 'status', 'sleeping');
    expect(await stores.resources.read('bridge://output/planted/page/2', 'me')).toBeUndefined();
    expect(await stores.resources.has('bridge://output/planted/page/2', 'me')).toBe(false);
    expect(await stores.resources.read('bridge://output/odd/page/2', 'me')).toBeUndefined();
    expect(await stores.tasks.get(planted, 'me')).toBeUndefined();
    expect(await stores.tasks.get(half, 'me')).toBeUndefined();
    expect(await stores.tasks.transition(planted, 'cancelled')).toBeUndefined();
    await redis?.command('PUBLISH', `${ns}:task-events`, '{"type":"status","task":{"taskId":1}}');
    await eventually(() => (log.warnings.some((w) => /did not send/.test(w)) ? true : undefined));
    expect(log.warnings.filter((w) => /did not write/.test(w)).length).toBeGreaterThanOrEqual(4);
  });

  it('take a task id naming one of their own keys (an index, the counter) as absent, without a warning', async () => {
    const log = recordingLogger();
    const stores = await shared(log);
    await stores.tasks.create(newTask());
    for (const taskId of ['of:alice', 'seq', 'x'.repeat(100_000)]) {
      expect(await stores.tasks.get(taskId, 'alice')).toBeUndefined();
    }
    expect(log.warnings).toEqual([]);
  });

  it('keep a caller’s byte count right across evictions and rewrites, and recount one kept by an older bridge', async () => {
    const stores = await shared(recordingLogger(), 100);
    const ns = `t${namespaces}`;
    const put = (name: string, uri?: string) =>
      stores.resources.put(
        { name, mimeType: 'text/plain', text: 'x'.repeat(10), ...(uri ? { uri } : {}) },
        'me',
      );
    const names = async () => (await stores.resources.list('me')).map((entry) => entry.name);
    for (let i = 0; i < 10; i++) await put(`p${i}`);
    // Rewriting an entry replaces its bytes rather than adding to them.
    for (let i = 0; i < 3; i++) await put('again', 'bridge://output/same');
    expect(await names()).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9', 'again']);
    // Sizes without the running sum (as an older bridge kept them) are added up once.
    await redis?.command('HDEL', `${ns}:res:sizes:me`, 'total');
    await put('late');
    expect(await names()).toEqual(['p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9', 'again', 'late']);
  });

  it('drop a task with delete: gone from reads, from its caller’s list and from this instance’s running set', async () => {
    const stores = await shared();
    const ns = `t${namespaces}`;
    const task = await stores.tasks.create(newTask());
    expect(await redis?.command('SISMEMBER', `${ns}:running:${stores.tasks.instance}`, task.taskId)).toBe(1);
    await stores.tasks.delete(task.taskId);
    expect(await stores.tasks.get(task.taskId, 'alice')).toBeUndefined();
    expect(await stores.tasks.list('alice')).toEqual({ tasks: [] });
    expect(await redis?.command('EXISTS', `${ns}:task:${task.taskId}`)).toBe(0);
    expect(await redis?.command('ZCARD', `${ns}:task:of:alice`)).toBe(0);
    expect(await redis?.command('SISMEMBER', `${ns}:running:${stores.tasks.instance}`, task.taskId)).toBe(0);
  });

  it('replace foreign values where their indexes and counters go, with a warning, and go on working', async () => {
    const log = recordingLogger();
    const stores = await shared(log, 1_000);
    const ns = `t${namespaces}`;
    await redis?.command('SET', `${ns}:res:of:alice`, 'not a sorted set');
    await redis?.command('LPUSH', `${ns}:task:of:alice`, 'not a sorted set');
    await redis?.command('SET', `${ns}:task:seq`, 'not a number');
    expect(await stores.resources.list('alice')).toEqual([]);
    expect(await stores.tasks.list('alice')).toEqual({ tasks: [] });
    const stored = await stores.resources.put({ name: 'a', mimeType: 'text/plain', text: 'fine' }, 'alice');
    const task = await stores.tasks.create(newTask());
    expect((await stores.resources.list('alice')).map((entry) => entry.uri)).toEqual([stored.uri]);
    expect((await stores.tasks.list('alice')).tasks.map((entry) => entry.taskId)).toEqual([task.taskId]);
    expect(log.warnings.filter((w) => /replaced values/.test(w))).toHaveLength(2);
  });

  it('tell every instance of a transition, and list a caller’s tasks page by page', async () => {
    const url = `${redis?.url}?namespace=ev${++namespaces}`;
    const one = await openStores(url, recordingLogger());
    const two = await openStores(url, recordingLogger(), { tasks: { pageSize: 2 } });
    opened.push(one, two);
    const heard: TaskEvent[] = [];
    two.tasks.subscribe((event) => heard.push(event));
    const tasks = [];
    for (let i = 0; i < 3; i++) tasks.push(await one.tasks.create(newTask()));
    const first = tasks[0]!;
    await one.tasks.transition(first.taskId, 'completed', { outcome: ok });
    await eventually(() => (heard.length > 0 ? true : undefined));
    expect(heard[0]).toMatchObject({
      type: 'status',
      task: { taskId: first.taskId, status: 'completed', outcome: ok },
    });
    expect(await two.tasks.waitForTerminal(first.taskId, 'alice')).toMatchObject({ status: 'completed' });
    const page = await two.tasks.list('alice');
    expect(page.tasks.map((task) => task.taskId)).toEqual(tasks.slice(0, 2).map((task) => task.taskId));
    const rest = await two.tasks.list('alice', page.nextCursor);
    expect(rest).toEqual({ tasks: [expect.objectContaining({ taskId: tasks[2]!.taskId })] });
    expect(await two.tasks.get(first.taskId, 'mallory')).toBeUndefined();
  });

  it('refuse more unfinished tasks per caller than allowed, finished ones making room', async () => {
    const url = `${redis?.url}?namespace=cap${++namespaces}`;
    const stores = await openStores(url, recordingLogger(), { tasks: { maxTasksPerCaller: 2 } });
    opened.push(stores);
    const first = await stores.tasks.create(newTask());
    await stores.tasks.create(newTask());
    await expect(stores.tasks.create(newTask())).rejects.toThrow(/Too many tasks/);
    await stores.tasks.transition(first.taskId, 'completed', { outcome: ok });
    await expect(stores.tasks.create(newTask())).resolves.toMatchObject({ status: 'working' });
    expect(await stores.tasks.get(first.taskId, 'alice')).toBeUndefined();
  });
});

describe.skipIf(MISSING_BINARIES)('the Redis task store, callers sharing a quota key', () => {
  it('counts their unfinished tasks together; each still lists only its own', async () => {
    const url = `${redis?.url}?namespace=quota${++namespaces}`;
    const stores = await openStores(url, recordingLogger(), { tasks: { maxTasksPerCaller: 2 } });
    opened.push(stores);
    const shared = (caller: string) => ({ ...newTask(), caller, quotaKey: 'address:10.0.0.1' });
    const first = await stores.tasks.create(shared('session:a'));
    await stores.tasks.create(shared('session:b'));
    await expect(stores.tasks.create(shared('session:c'))).rejects.toThrow(/Too many tasks/);
    await expect(
      stores.tasks.create({ ...newTask(), caller: 'session:d', quotaKey: 'address:10.0.0.2' }),
    ).resolves.toMatchObject({ status: 'working' });
    expect((await stores.tasks.list('session:a')).tasks.map((task) => task.taskId)).toEqual([first.taskId]);
    expect(await stores.tasks.get(first.taskId, 'session:b')).toBeUndefined();
    // A finished task of the key makes room and leaves its caller's list.
    await stores.tasks.transition(first.taskId, 'completed', { outcome: ok });
    await expect(stores.tasks.create(shared('session:c'))).resolves.toMatchObject({ status: 'working' });
    expect((await stores.tasks.list('session:a')).tasks).toEqual([]);
    expect(await redis?.command('ZCARD', `quota${namespaces}:task:of:session:a`)).toBe(0);
  });
});

describe.skipIf(MISSING_BINARIES)('the Redis task store, bytes of results', () => {
  it('keeps a result past the quota key’s budget as an error; expired tasks give their bytes back', async () => {
    const url = `${redis?.url}?namespace=bytes${++namespaces}`;
    const stores = await openStores(url, recordingLogger(), { tasks: { maxResultBytesPerCaller: 100_000 } });
    opened.push(stores);
    const big = (text: string) => ({
      kind: 'result' as const,
      result: { content: [{ type: 'text' as const, text }] },
    });
    const shared = (caller: string, ttlMs = 60_000) => ({
      ...newTask(),
      caller,
      ttlMs,
      quotaKey: 'address:10.0.0.1',
    });
    const first = await stores.tasks.create(shared('session:a', 1_000));
    await stores.tasks.transition(first.taskId, 'completed', { outcome: big('x'.repeat(60_000)) });
    const second = await stores.tasks.create(shared('session:b'));
    await stores.tasks.transition(second.taskId, 'completed', { outcome: big('y'.repeat(60_000)) });
    const refused = await stores.tasks.get(second.taskId, 'session:b');
    expect(refused?.outcome?.kind === 'result' && refused.outcome.result.isError).toBe(true);
    expect(JSON.stringify(refused?.outcome)).toMatch(
      /60\d{3} bytes.*already hold 0.1 MiB of results, of the 0.1 MiB/,
    );
    // Not stored in Redis either: the refused task's hash is small.
    expect(
      String(await redis?.command('HGET', `bytes${namespaces}:task:${second.taskId}`, 'outcome')).length,
    ).toBeLessThan(1_000);
    // Another address keeps its result.
    const other = await stores.tasks.create({
      ...newTask(),
      caller: 'session:c',
      quotaKey: 'address:10.0.0.2',
    });
    await stores.tasks.transition(other.taskId, 'completed', { outcome: big('z'.repeat(60_000)) });
    expect(JSON.stringify((await stores.tasks.get(other.taskId, 'session:c'))?.outcome)).toContain(
      'z'.repeat(100),
    );
    // Once the first expires, the address has room again.
    await eventually(async () => ((await stores.tasks.get(first.taskId, 'session:a')) ? undefined : true));
    const third = await stores.tasks.create(shared('session:b'));
    await stores.tasks.transition(third.taskId, 'completed', { outcome: big('w'.repeat(60_000)) });
    expect(JSON.stringify((await stores.tasks.get(third.taskId, 'session:b'))?.outcome)).toContain(
      'w'.repeat(100),
    );
  });
});

const ok = { kind: 'result' as const, result: { content: [{ type: 'text' as const, text: 'ok' }] } };
function newTask() {
  return { caller: 'alice', toolName: 'tool', ttlMs: 60_000, pollIntervalMs: 500 };
}
