// notifications/tasks on 2026-07-28 subscriptions/listen streams (the tasks extension, SEP-2663).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernFetch, modernRequest } from '../helpers/modern-request.js';
import { readEvents } from '../helpers/read-sse.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';

const askServer = { script: distPath('test/servers/ask-server.js'), args: [] };
const TASKS = 'io.modelcontextprotocol/tasks';
const capabilities = { elicitation: { form: {} }, extensions: { [TASKS]: {} } };

describe('notifications/tasks through subscriptions/listen', () => {
  let bridge: HttpBridge;
  let dir: string;
  beforeAll(async () => {
    bridge = await startHttpBridge(askServer);
    dir = mkdtempSync(join(tmpdir(), 'bridge-listen-'));
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
    rmSync(dir, { recursive: true, force: true });
  });

  const listen = (notifications: Record<string, unknown>, caps: object = capabilities) =>
    modernFetch(bridge.url, 'subscriptions/listen', { notifications }, { capabilities: caps, id: 'sub-1' });

  it('streams each change of the caller’s task, with its questions and finally its result', async () => {
    const request = (method: string, params: Record<string, unknown>) =>
      modernRequest(bridge.url, method, params, { capabilities });
    const created = await request('tools/call', { name: 'greet', arguments: { marker: join(dir, 'm') } });
    const taskId = String(created.json?.result?.taskId);

    const stream = await listen({ taskIds: [taskId, 'not-a-task'], toolsListChanged: true });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const events: Array<Record<string, unknown>> = [];
    const reading = readEvents(stream, (event) => {
      events.push(event.data);
      const params = event.data.params as { status?: string; inputRequests?: unknown } | undefined;
      if (event.data.method === 'notifications/tasks' && params?.status === 'input_required') {
        void request('tasks/update', {
          taskId,
          inputResponses: { who: { action: 'accept', content: { name: 'Vi' } } },
        });
      }
      return params?.status === 'completed';
    });
    await reading;
    expect(events[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { taskIds: [taskId], toolsListChanged: true },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
      },
    });
    const tasks = events.filter((event) => event.method === 'notifications/tasks');
    const statuses = tasks.map((event) => (event.params as { status: string }).status);
    expect(statuses).toContain('input_required');
    expect(statuses.at(-1)).toBe('completed');
    const waiting = tasks.find((event) => (event.params as { status: string }).status === 'input_required');
    expect(waiting?.params).toMatchObject({ inputRequests: { who: { method: 'elicitation/create' } } });
    expect(tasks.at(-1)?.params).toMatchObject({
      taskId,
      result: { content: [{ type: 'text', text: 'Hello, Vi!' }] },
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
    });
  });

  it('refuses a listen for more than 1,000 task ids or resource URIs, and takes 1,000', async () => {
    const ids = (count: number) => Array.from({ length: count }, (_, index) => `task-${index}`);
    const refused = await listen({ taskIds: ids(1_001) });
    const body = (await refused.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBe('sub-1');
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain('at most 1000 task ids');
    const uris = await listen({ taskIds: ['x'], resourceSubscriptions: ids(1_001) });
    expect(((await uris.json()) as { error: { code: number } }).error.code).toBe(-32602);
    // Each URI is named back in the acknowledgement: one over 2,048 characters is refused.
    const long = await listen({ taskIds: ['x'], resourceSubscriptions: [`x://${'u'.repeat(2_048)}`] });
    const longError = ((await long.json()) as { error: { code: number; message: string } }).error;
    expect(longError).toEqual({
      code: -32602,
      message: 'A subscriptions/listen names resource URIs of at most 2048 characters.',
    });
    // Repeats count once; none of these ids is the caller's, so the stream completes at once.
    const taken = await listen({ taskIds: [...ids(1_000), ...ids(1_000)] });
    expect(taken.headers.get('content-type')).toContain('text/event-stream');
    expect(await taken.text()).toContain('"result"');
  });

  it('refuses task notifications to a client without the tasks extension', async () => {
    const refused = await listen({ taskIds: ['x'] }, { elicitation: {} });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { id: unknown; error: { code: number; data: unknown } };
    expect(body.id).toBe('sub-1');
    expect(body.error.code).toBe(-32021);
    expect(body.error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
  });

  it('completes at once when nothing asked for can be honored', async () => {
    const stream = await listen({ taskIds: ['someone-elses-task'] });
    const events = await readEvents(stream, () => false);
    expect(events.map((event) => event.data.method ?? 'result')).toEqual([
      'notifications/subscriptions/acknowledged',
      'result',
    ]);
    expect(events[0]?.data.params).toEqual({
      notifications: {},
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
    });
  });
});
