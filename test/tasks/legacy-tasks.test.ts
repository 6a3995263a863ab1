// Tasks of the initialize era (2025-11-25) through the v1 SDK client's `experimental.tasks` API,
// over stdio and Streamable HTTP, against a real server process whose tools run real processes.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ListTasksResultSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectV1, eventually, isAlive, pidDirectory } from './helpers.js';

type Message = { type: string; task?: { taskId: string; status: string }; result?: Record<string, unknown> };

async function collect(stream: AsyncIterable<unknown>): Promise<Message[]> {
  const messages: Message[] = [];
  for await (const message of stream) messages.push(message as Message);
  return messages;
}

describe.each(['stdio', 'http'] as const)('2025-11-25 tasks with the v1 client over %s', (wire) => {
  it('advertises the tasks capability and each tool’s task support', async () => {
    await using client = await connectV1(wire);
    expect(client.v1.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution]));
    expect(support).toMatchObject({
      sleep: { taskSupport: 'optional' },
      sleep_required: { taskSupport: 'required' },
      sleep_forbidden: undefined,
    });
  });

  it('runs a command as a task: created, polled, result with the related-task _meta', async () => {
    await using client = await connectV1(wire);
    await client.listTools();
    const messages = await collect(
      client.v1.experimental.tasks.callToolStream({ name: 'sleep', arguments: { seconds: 0.3 } }, undefined, {
        task: { ttl: 60_000 },
      }),
    );
    expect(messages[0]).toMatchObject({ type: 'taskCreated', task: { status: 'working', ttl: 60_000 } });
    const taskId = String(messages[0]?.task?.taskId);
    expect(messages.at(-2)).toMatchObject({ type: 'taskStatus', task: { taskId, status: 'completed' } });
    expect(messages.at(-1)).toMatchObject({
      type: 'result',
      result: {
        content: [{ type: 'text', text: 'slept 0.3 s' }],
        _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
      },
    });
    const task = await client.v1.experimental.tasks.getTask(taskId);
    expect(task).toMatchObject({ taskId, status: 'completed', ttl: 60_000, pollInterval: 1000 });
    expect(Date.parse(task.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(task.createdAt));
  });

  it('completes a task whose command fails with an isError result, and pages long output', async () => {
    await using client = await connectV1(wire);
    const failed = await client.v1.request(
      { method: 'tools/call', params: { name: 'exit_code', arguments: { code: 3 }, task: {} } },
      CreateTaskResultSchema,
    );
    const result = await client.v1.experimental.tasks.getTaskResult(failed.task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, content: [{ text: 'the command exited with 3' }] });
    expect((await client.v1.experimental.tasks.getTask(failed.task.taskId)).status).toBe('completed');

    const long = await client.v1.request(
      { method: 'tools/call', params: { name: 'count', arguments: { to: 20_000 }, task: {} } },
      CreateTaskResultSchema,
    );
    const paged = await client.v1.experimental.tasks.getTaskResult(long.task.taskId, CallToolResultSchema);
    const link = paged.content.find((block) => block.type === 'resource_link');
    expect(link).toBeDefined();
    // The pages belong to the task's caller, which is this connection.
    const page = await client.readResource(String((link as { uri: string }).uri));
    expect(String(page.contents[0]?.text)).toMatch(/^\d+\n/);
  });

  it('ends a task whose tool throws unexpectedly as failed; tasks/result is the JSON-RPC error', async () => {
    await using client = await connectV1(wire);
    const created = await client.v1.request(
      { method: 'tools/call', params: { name: 'crash', arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    await expect(
      client.v1.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema),
    ).rejects.toThrow("reading 'items'");
    expect((await client.v1.experimental.tasks.getTask(created.task.taskId)).status).toBe('failed');
  });

  it('cancels a running task: status cancelled and the process killed', async () => {
    using pids = pidDirectory();
    await using client = await connectV1(wire, pids.path);
    const created = await client.v1.request(
      { method: 'tools/call', params: { name: 'sleep', arguments: { seconds: 60 }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const pid = await eventually(() => pids.pids()[0]);
    expect(isAlive(pid)).toBe(true);
    const cancelled = await client.v1.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled).toMatchObject({ taskId: created.task.taskId, status: 'cancelled' });
    await eventually(() => (isAlive(pid) ? undefined : true));
    // It stays cancelled after the killed command returns.
    await sleep(100);
    expect((await client.v1.experimental.tasks.getTask(created.task.taskId)).status).toBe('cancelled');
    const result = await client.v1.experimental.tasks.getTaskResult(
      created.task.taskId,
      CallToolResultSchema,
    );
    expect(result).toMatchObject({ isError: true });
    // Cancelling a finished task is refused.
    await expect(client.v1.experimental.tasks.cancelTask(created.task.taskId)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('already cancelled'),
    });
  });

  it('blocks tasks/result until the task is terminal', async () => {
    await using client = await connectV1(wire);
    const started = Date.now();
    const created = await client.v1.request(
      { method: 'tools/call', params: { name: 'sleep', arguments: { seconds: 0.5 }, task: {} } },
      CreateTaskResultSchema,
    );
    expect(created.task.status).toBe('working');
    const result = await client.v1.experimental.tasks.getTaskResult(
      created.task.taskId,
      CallToolResultSchema,
    );
    expect(result.content).toEqual([{ type: 'text', text: 'slept 0.5 s' }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

  it('answers bad input with the spec’s codes and keeps serving', async () => {
    await using client = await connectV1(wire);
    const call = (params: Record<string, unknown>) =>
      client.v1.request({ method: 'tools/call', params } as never, CallToolResultSchema);
    // A required tool without a task, a forbidden one with a task: -32601.
    await expect(call({ name: 'sleep_required', arguments: { seconds: 0 } })).rejects.toMatchObject({
      code: -32601,
      message: expect.stringContaining('must run as a task'),
    });
    await expect(
      call({ name: 'sleep_forbidden', arguments: { seconds: 0 }, task: {} }),
    ).rejects.toMatchObject({
      code: -32601,
      message: expect.stringContaining('does not support running as a task'),
    });
    // TTLs out of range, or not a number.
    for (const ttl of [-1, 10, 1.5, 99 * 3_600_000, 'soon']) {
      await expect(call({ name: 'sleep', arguments: { seconds: 0 }, task: { ttl } })).rejects.toMatchObject({
        code: -32602,
        // The bounds are the server's own (test/servers/tasks-server.ts sets the minimum).
        message: expect.stringMatching(/Invalid task ttl .* from 200 to 3600000/),
      });
    }
    // Unknown ids and cursors.
    const tasks = client.v1.experimental.tasks;
    for (const attempt of [
      () => tasks.getTask('no-such-task'),
      () => tasks.getTaskResult('no-such-task', CallToolResultSchema),
      () => tasks.cancelTask('no-such-task'),
      () => tasks.listTasks('bogus-cursor'),
      () => client.v1.request({ method: 'tasks/get', params: {} } as never, CallToolResultSchema),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: -32602 });
    }
    // Nothing was created by the refused calls; the server still runs tasks.
    expect((await tasks.listTasks()).tasks).toEqual([]);
    const ok = await client.v1.request(
      { method: 'tools/call', params: { name: 'sleep_required', arguments: { seconds: 0 }, task: {} } },
      CreateTaskResultSchema,
    );
    expect((await tasks.getTaskResult(ok.task.taskId, CallToolResultSchema)).isError).toBeFalsy();
    // Arguments are validated as for a plain call: the task completes with an isError result.
    const invalid = await client.v1.request(
      { method: 'tools/call', params: { name: 'sleep', arguments: { seconds: 'x' }, task: {} } },
      CreateTaskResultSchema,
    );
    const violation = await tasks.getTaskResult(invalid.task.taskId, CallToolResultSchema);
    expect(violation).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('/seconds') }],
    });
  });

  it('shows the tool’s progress as the status message, with a notification each time', async () => {
    await using client = await connectV1(wire);
    const notified: string[] = [];
    client.v1.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
      if (notification.params.statusMessage) notified.push(notification.params.statusMessage);
    });
    const created = await client.v1.request(
      { method: 'tools/call', params: { name: 'steps', arguments: { steps: 4 }, task: {} } },
      CreateTaskResultSchema,
    );
    const message = await eventually(async () => {
      const task = await client.v1.experimental.tasks.getTask(created.task.taskId);
      return task.status === 'working' ? task.statusMessage : undefined;
    });
    expect(message).toMatch(/^step [1-4] \([1-4]\/4\)$/);
    const result = await client.v1.experimental.tasks.getTaskResult(
      created.task.taskId,
      CallToolResultSchema,
    );
    expect(result.content).toEqual([{ type: 'text', text: '4 steps done' }]);
    // Over HTTP they ride the client's standalone SSE stream.
    await eventually(() => (notified.includes(message) ? true : undefined));
  });

  it('drops a task and its result at the end of its TTL, not before', async () => {
    await using client = await connectV1(wire);
    const tasks = client.v1.experimental.tasks;
    const created = await client.v1.request(
      { method: 'tools/call', params: { name: 'sleep', arguments: { seconds: 0 }, task: { ttl: 1_000 } } },
      CreateTaskResultSchema,
    );
    const createdAt = Date.parse(created.task.createdAt);
    await tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    const listed = (await tasks.listTasks()).tasks.length;
    // Still there within its TTL (unless the machine was too slow to ask in time).
    if (Date.now() - createdAt < 900) expect(listed).toBe(1);
    const error = await eventually(() =>
      tasks.getTask(created.task.taskId).then(
        () => undefined,
        (failure: unknown) => failure,
      ),
    );
    expect(Date.now() - createdAt).toBeGreaterThanOrEqual(1_000);
    expect(error).toMatchObject({ code: -32602, message: expect.stringContaining('Task not found') });
    expect((await tasks.listTasks()).tasks).toEqual([]);
  });
});

describe('2025-11-25 tasks, transport-specific', () => {
  it('sends notifications/tasks/status on stdio and lists tasks page by page', async () => {
    await using client = await connectV1('stdio');
    const statuses: string[] = [];
    client.v1.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
      statuses.push(`${notification.params.taskId}:${notification.params.status}`);
    });
    const ids: string[] = [];
    for (let i = 0; i < 105; i++) {
      const created = await client.v1.request(
        { method: 'tools/call', params: { name: 'exit_code', arguments: { code: 0 }, task: {} } },
        CreateTaskResultSchema,
      );
      ids.push(created.task.taskId);
    }
    await eventually(() => (statuses.length >= 105 ? true : undefined));
    expect(new Set(statuses)).toEqual(new Set(ids.map((id) => `${id}:completed`)));
    const first = await client.v1.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
    expect(first.tasks).toHaveLength(100);
    expect(first.nextCursor).toBeTypeOf('string');
    const second = await client.v1.experimental.tasks.listTasks(first.nextCursor);
    expect(second.nextCursor).toBeUndefined();
    expect([...first.tasks, ...second.tasks].map((task) => task.taskId)).toEqual(ids);
  });

  it('kills running tasks’ processes when the server shuts down', async () => {
    using pids = pidDirectory();
    const client = await connectV1('stdio', pids.path);
    await client.v1.request(
      { method: 'tools/call', params: { name: 'sleep', arguments: { seconds: 60 }, task: {} } },
      CreateTaskResultSchema,
    );
    const pid = await eventually(() => pids.pids()[0]);
    expect(isAlive(pid)).toBe(true);
    // Closing stdin ends the stdio server.
    await client[Symbol.asyncDispose]();
    await eventually(() => (isAlive(pid) ? undefined : true));
  });

  it('keeps one HTTP session’s tasks away from another', async () => {
    using pids = pidDirectory();
    await using owner = await connectV1('http', pids.path);
    const created = await owner.v1.request(
      { method: 'tools/call', params: { name: 'sleep', arguments: { seconds: 30 }, task: {} } },
      CreateTaskResultSchema,
    );
    // A second session on the same server process.
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    const other = new Client({ name: 'other', version: '1' });
    await other.connect(new StreamableHTTPClientTransport(new URL(serverUrl(owner))));
    try {
      const { taskId } = created.task;
      await expect(other.experimental.tasks.getTask(taskId)).rejects.toMatchObject({ code: -32602 });
      await expect(other.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({ code: -32602 });
      await expect(
        other.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
      ).rejects.toMatchObject({
        code: -32602,
      });
      expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
      expect((await owner.v1.experimental.tasks.getTask(taskId)).status).toBe('working');
      await owner.v1.experimental.tasks.cancelTask(taskId);
      const pid = await eventually(() => pids.pids()[0]);
      await eventually(() => (isAlive(pid) ? undefined : true));
    } finally {
      await other.close();
    }
  });
});

function serverUrl(client: { v1: { transport?: unknown } }): string {
  return String((client.v1.transport as { _url: URL })._url);
}
