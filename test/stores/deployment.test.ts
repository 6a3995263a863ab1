// Several bridges behind nginx, sharing tasks and paged outputs through a real Redis: the
// scenarios of a scale-out deployment, run with real processes (the tasks server's tools start
// real `sleep`/`seq` processes), the real SDK clients, and the nginx config the README ships.
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Backend,
  MISSING_BINARIES,
  startNginx,
  startRedis,
  type TestRedis,
} from '../helpers/deployment.js';
import { modernFetch, modernRequest } from '../helpers/modern-request.js';
import { readEvents } from '../helpers/read-sse.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { eventually, isAlive, pidDirectory } from '../tasks/helpers.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { extensions: { [TASKS]: {} } };

if (MISSING_BINARIES) console.warn(`skipping the scale-out deployment tests: ${MISSING_BINARIES}`);

describe.skipIf(MISSING_BINARIES)('two bridges on one Redis, behind nginx', () => {
  const pids = pidDirectory();
  let redis: TestRedis;
  let a: HttpBridge;
  let b: HttpBridge;
  let nginx: { url: URL } & AsyncDisposable;
  const instance = (name: string) =>
    startHttpBridge({
      script: distPath('test/servers/tasks-server.js'),
      args: ['--store', redis.url, '--instance', name],
      env: { TASKS_PID_DIR: pids.path },
    });

  beforeAll(async () => {
    redis = await startRedis();
    [a, b] = await Promise.all([instance('a'), instance('b')]);
    const backends: Backend[] = [
      { name: 'a', url: a.url },
      { name: 'b', url: b.url },
    ];
    nginx = await startNginx(backends);
  });
  afterAll(async () => {
    await nginx?.[Symbol.asyncDispose]();
    await Promise.allSettled([a?.[Symbol.asyncDispose](), b?.[Symbol.asyncDispose]()]);
    await redis?.[Symbol.asyncDispose]();
    pids[Symbol.dispose]();
  });

  const rpc = async (url: URL, method: string, params: Record<string, unknown> = {}) => {
    // resources/read names its URI in Mcp-Name.
    const headers = typeof params.uri === 'string' ? { 'mcp-name': params.uri } : undefined;
    const reply = await modernRequest(url, method, params, {
      capabilities: WITH_TASKS,
      ...(headers ? { headers } : {}),
    });
    return { status: reply.status, ...reply.json };
  };

  it('creates a task through A and polls, updates and cancels it through B; the cancel stops the process on A', async () => {
    const before = new Set(pids.pids());
    const created = await rpc(a.url, 'tools/call', { name: 'sleep_required', arguments: { seconds: 60 } });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = String(created.result?.taskId);
    const pid = await eventually(() => pids.pids().find((p) => !before.has(p)));
    expect(isAlive(pid)).toBe(true);

    expect((await rpc(b.url, 'tasks/get', { taskId })).result).toMatchObject({ taskId, status: 'working' });
    const updated = await rpc(b.url, 'tasks/update', { taskId, inputResponses: {} });
    expect(updated).toMatchObject({ status: 200, result: { resultType: 'complete' } });
    expect(updated.error).toBeUndefined();
    const cancelled = await rpc(b.url, 'tasks/cancel', { taskId });
    expect(cancelled).toMatchObject({ status: 200, result: { resultType: 'complete' } });

    await eventually(() => (isAlive(pid) ? undefined : true));
    expect((await rpc(a.url, 'tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
  });

  it('shows through B the question a task on A waits on, and takes the answer through B', async () => {
    const withForms = { elicitation: { form: {} }, extensions: { [TASKS]: {} } };
    const ask = async (url: URL, method: string, params: Record<string, unknown>) =>
      (await modernRequest(url, method, params, { capabilities: withForms })).json ?? {};
    const created = await ask(a.url, 'tools/call', { name: 'ask_name', arguments: {} });
    const taskId = String(created.result?.taskId);
    const waiting = await eventually(async () => {
      const reply = await ask(b.url, 'tasks/get', { taskId });
      return reply.result?.status === 'input_required' ? reply.result : undefined;
    });
    expect(waiting.inputRequests).toMatchObject({
      who: { method: 'elicitation/create', params: { message: 'Who shall I greet?' } },
    });
    const updated = await ask(b.url, 'tasks/update', {
      taskId,
      inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(updated.error).toBeUndefined();
    const done = await eventually(async () => {
      const reply = await ask(b.url, 'tasks/get', { taskId });
      return reply.result?.status === 'completed' ? reply.result : undefined;
    });
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
  });

  it('reads through B the pages of an output written by A', async () => {
    const called = await rpc(a.url, 'tools/call', { name: 'count', arguments: { to: 20_000 } });
    const content = (called.result?.content ?? []) as Array<{ type: string; text?: string; uri?: string }>;
    const links = content.filter((block) => block.type === 'resource_link');
    expect(links.length).toBeGreaterThan(0);
    let whole = content[0]?.text ?? '';
    for (const link of links) {
      const read = await rpc(b.url, 'resources/read', { uri: link.uri });
      const contents = (read.result?.contents ?? []) as Array<{ text: string }>;
      whole += contents[0]?.text ?? '<missing>';
    }
    expect(whole.trim().split('\n').map(Number)).toEqual(Array.from({ length: 20_000 }, (_, i) => i + 1));
  });

  it('streams notifications/tasks to a listener on B for a task running on A', async () => {
    const created = await rpc(a.url, 'tools/call', { name: 'steps', arguments: { steps: 3 } });
    const taskId = String(created.result?.taskId);
    const stream = await modernFetch(
      b.url,
      'subscriptions/listen',
      { notifications: { taskIds: [taskId] } },
      { capabilities: WITH_TASKS, id: 'listen-b' },
    );
    const events = await readEvents(stream, (event) => {
      const params = event.data.params as { status?: string } | undefined;
      return event.data.method === 'notifications/tasks' && params?.status === 'completed';
    });
    const tasks = events.filter((event) => event.data.method === 'notifications/tasks');
    expect(tasks.at(-1)?.data.params).toMatchObject({
      taskId,
      status: 'completed',
      result: { content: [{ type: 'text', text: '3 steps done' }] },
    });
  });

  it('fails the task of an instance that died mid-task, with the reason, instead of leaving it working', async () => {
    const doomed = await instance('c');
    const created = await rpc(doomed.url, 'tools/call', {
      name: 'sleep_required',
      arguments: { seconds: 60 },
    });
    const taskId = String(created.result?.taskId);
    doomed.child.kill('SIGKILL');
    const failed = await eventually(async () => {
      const reply = await rpc(b.url, 'tasks/get', { taskId });
      return reply.result?.status === 'working' ? undefined : reply.result;
    }, 20_000);
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(String(failed.statusMessage)).toMatch(/stopped answering \(no heartbeat/);
  });

  it('fails the tasks of an instance stopped mid-task, saying it shut down, and stops their processes', async () => {
    const before = new Set(pids.pids());
    const stopping = await instance('d');
    const created = await rpc(stopping.url, 'tools/call', {
      name: 'sleep_required',
      arguments: { seconds: 60 },
    });
    const taskId = String(created.result?.taskId);
    const pid = await eventually(() => pids.pids().find((p) => !before.has(p)));
    await stopping[Symbol.asyncDispose]();
    const failed = (await rpc(b.url, 'tasks/get', { taskId })).result;
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(String(failed?.statusMessage)).toMatch(/shut down before it finished/);
    await eventually(() => (isAlive(pid) ? undefined : true));
  });

  it('answers an initialize-era session unknown to the instance with a clean 404', async () => {
    const client = new ClientV1({ name: 'affinity', version: '1' });
    const transport = new HttpV1(a.url);
    await client.connect(transport);
    try {
      expect(transport.sessionId).toMatch(/^a\./);
      const reply = await fetch(b.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': String(transport.sessionId),
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(reply.status).toBe(404);
      expect(await reply.json()).toMatchObject({ error: { code: -32001 } });
    } finally {
      await client.close();
    }
  });

  describe('through nginx', () => {
    it('serves a 2026-07-28 client round-robin: pages and tasks work whichever instance answers', async () => {
      const client = new ClientV2(
        { name: 'lb-v2', version: '1' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(new HttpV2(nginx.url));
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('count');
        const result = await client.callTool({ name: 'count', arguments: { to: 12_000 } });
        const content = result.content as Array<{ type: string; text?: string; uri?: string }>;
        let whole = content[0]?.text ?? '';
        for (const link of content.filter((block) => block.type === 'resource_link')) {
          const read = await client.readResource({ uri: String(link.uri) });
          whole += (read.contents[0] as { text: string }).text;
        }
        expect(whole.trim().split('\n')).toHaveLength(12_000);
      } finally {
        await client.close();
      }
      // Each request of a task's life may land on either instance.
      const created = await rpc(nginx.url, 'tools/call', {
        name: 'sleep_required',
        arguments: { seconds: 0.5 },
      });
      const taskId = String(created.result?.taskId);
      const done = await eventually(async () => {
        const reply = await rpc(nginx.url, 'tasks/get', { taskId });
        return reply.result?.status === 'working' ? undefined : reply.result;
      });
      expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'slept 0.5 s' }] } });
    });

    it('keeps each initialize-era session on its instance (v1 client, calls and a task)', async () => {
      for (let round = 0; round < 2; round++) {
        const client = new ClientV1({ name: 'lb-v1', version: '1' });
        const transport = new HttpV1(nginx.url);
        await client.connect(transport);
        try {
          expect(transport.sessionId).toMatch(/^[ab]\./);
          for (let call = 0; call < 3; call++) {
            const result = await client.callTool({ name: 'exit_code', arguments: { code: 0 } });
            expect(result.isError).toBeFalsy();
          }
          const created = await client.request(
            { method: 'tools/call', params: { name: 'sleep', arguments: { seconds: 0.2 }, task: {} } },
            CreateTaskResultSchema,
          );
          const result = await client.experimental.tasks.getTaskResult(
            created.task.taskId,
            CallToolResultSchema,
          );
          expect(result.content).toEqual([{ type: 'text', text: 'slept 0.2 s' }]);
        } finally {
          await client.close();
        }
      }
    });
  });
});
