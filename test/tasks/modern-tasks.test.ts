// The 2026-07-28 tasks extension over Streamable HTTP, spoken raw: the per-request `_meta` envelope
// and the headers the revision requires, against a real server whose tools run real processes.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernRequest } from '../helpers/modern-request.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { eventually, isAlive, pidDirectory } from './helpers.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { extensions: { [TASKS]: {} } };

type Reply = {
  status: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

const pids = pidDirectory();
let bridge: HttpBridge;
let nextId = 0;
beforeAll(async () => {
  bridge = await startHttpBridge({
    script: distPath('test/servers/tasks-server.js'),
    args: [],
    env: { TASKS_PID_DIR: pids.path },
  });
});
afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
  pids[Symbol.dispose]();
});

/** One 2026-07-28 request; `capabilities` are the client's per-request capabilities. */
async function rpc(
  method: string,
  params: Record<string, unknown> = {},
  capabilities: object = WITH_TASKS,
): Promise<Reply> {
  const reply = await modernRequest(bridge.url, method, params, { capabilities, id: ++nextId });
  return { status: reply.status, ...reply.json };
}

async function createTask(name: string, args: Record<string, unknown>) {
  const reply = await rpc('tools/call', { name, arguments: args });
  expect(reply.result).toMatchObject({ resultType: 'task', status: 'working' });
  return String(reply.result?.taskId);
}

async function untilTerminal(taskId: string) {
  return eventually(async () => {
    const reply = await rpc('tasks/get', { taskId });
    const status = reply.result?.status;
    return status === 'working' ? undefined : reply.result;
  });
}

describe('2026-07-28 tasks extension over HTTP', () => {
  it('is listed in server/discover', async () => {
    const reply = await rpc('server/discover');
    expect(reply.result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
    expect(reply.result?.capabilities).not.toHaveProperty('tasks');
  });

  it('runs a command as a task for a declaring client; tasks/get inlines the result', async () => {
    const created = await rpc('tools/call', { name: 'sleep', arguments: { seconds: 0.3 } });
    expect(created.result).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 900_000,
      pollIntervalMs: 1000,
    });
    expect(Date.parse(String(created.result?.createdAt))).not.toBeNaN();
    const taskId = String(created.result?.taskId);
    const working = await rpc('tasks/get', { taskId });
    expect(working.result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    expect(working.result).not.toHaveProperty('result');
    const done = await untilTerminal(taskId);
    expect(done).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'slept 0.3 s' }] },
    });
  });

  it('answers a quick call of an optional tool directly, and always makes a task of a required one', async () => {
    const quick = await rpc('tools/call', { name: 'exit_code', arguments: { code: 2 } });
    expect(quick.result).toMatchObject({
      resultType: 'complete',
      isError: true,
      content: [{ text: 'the command exited with 2' }],
    });
    const required = await rpc('tools/call', { name: 'sleep_required', arguments: { seconds: 0 } });
    expect(required.result).toMatchObject({ resultType: 'task' });
    expect(await untilTerminal(String(required.result?.taskId))).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'slept 0 s' }] },
    });
  });

  it('never returns a task to a client that did not declare the extension', async () => {
    const plain = await rpc('tools/call', { name: 'sleep', arguments: { seconds: 0 } }, {});
    expect(plain.result).toMatchObject({ resultType: 'complete', content: [{ text: 'slept 0 s' }] });
    // A legacy params.task is ignored: the server decides, and a forbidden tool runs plainly.
    const forbidden = await rpc('tools/call', {
      name: 'sleep_forbidden',
      arguments: { seconds: 0 },
      task: { ttl: 5000 },
    });
    expect(forbidden.result).toMatchObject({ resultType: 'complete', content: [{ text: 'slept 0 s' }] });
    const required = await rpc('tools/call', { name: 'sleep_required', arguments: { seconds: 0 } }, {});
    expect(required.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const reply = await rpc(method, { taskId: 'whatever' }, {});
      expect(reply.error?.code).toBe(-32021);
    }
  });

  // SEP-2663: `failed` is for protocol-level failures; a tool's own error result is `completed`.
  it('ends a task whose tool throws unexpectedly as failed, with the JSON-RPC error inlined', async () => {
    const created = await rpc('tools/call', { name: 'crash', arguments: {} });
    expect(created.result?.resultType).toBe('task');
    const task = await untilTerminal(String(created.result?.taskId));
    expect(task).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(String((task?.error as { message?: string } | undefined)?.message)).toContain("reading 'items'");
    expect(task).not.toHaveProperty('result');
  });

  it('cancels a task: empty ack, the process killed, status cancelled', async () => {
    const taskId = await createTask('sleep_required', { seconds: 60 });
    const pid = await eventually(() => pids.pids().find((candidate) => isAlive(candidate)));
    const ack = await rpc('tasks/cancel', { taskId });
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    await eventually(() => (isAlive(pid) ? undefined : true));
    await sleep(100);
    expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
    // Cancelling again (a finished task) is acknowledged and changes nothing.
    expect((await rpc('tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
    expect((await rpc('tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
  });

  it('acknowledges tasks/update and refuses unknown ids with -32602', async () => {
    const taskId = await createTask('sleep_required', { seconds: 0 });
    expect((await rpc('tasks/update', { taskId, inputResponses: { nothing: {} } })).result).toMatchObject({
      resultType: 'complete',
    });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const reply = await rpc(method, { taskId: 'no-such-task' });
      expect(reply.error).toMatchObject({ code: -32602, message: expect.stringContaining('no-such-task') });
      // A taskId that is missing or not a string.
      expect((await rpc(method, { taskId: 42 })).error?.code).toBe(-32602);
    }
  });

  it('has no tasks/result nor tasks/list in this era', async () => {
    const taskId = await createTask('sleep_required', { seconds: 0 });
    expect((await rpc('tasks/result', { taskId })).error?.code).toBe(-32601);
    expect((await rpc('tasks/list')).error?.code).toBe(-32601);
  });
});
