import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../helpers/connect.js';
import { modernRequest } from '../helpers/modern-request.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { eventually } from '../tasks/helpers.js';

const askServer = { script: distPath('test/servers/ask-server.js'), args: [] };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-task-questions-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(['stdio', 'http'] as const)('a 2025-11-25 task that asks, v1 client over %s', (wire) => {
  it('goes input_required, asks on tasks/result with the related task, and completes once', async () => {
    const asked: Array<Record<string, unknown>> = [];
    await using client = await connect('v1', wire, askServer, {
      capabilities: { elicitation: { form: {} } },
      async answer(_method, params) {
        asked.push(params);
        return { action: 'accept', content: { name: 'Tess' } };
      },
    });
    const marker = join(dir, `v1-${wire}`);
    const messages: Array<Record<string, unknown>> = [];
    const stream = (client.raw as ClientV1).experimental.tasks.callToolStream(
      { name: 'greet', arguments: { marker } },
      undefined,
      { task: { ttl: 60_000 } },
    );
    for await (const message of stream) messages.push(message as never);
    const taskId = String((messages[0]?.task as { taskId?: string } | undefined)?.taskId);
    expect(messages.at(-1)).toMatchObject({
      type: 'result',
      result: { content: [{ type: 'text', text: 'Hello, Tess!' }] },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]?._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });
    expect(readFileSync(marker, 'utf8')).toBe('hello Tess\n');
  });
});

describe('a 2026-07-28 task that asks, raw HTTP', () => {
  let bridge: HttpBridge;
  beforeAll(async () => {
    bridge = await startHttpBridge(askServer);
  });
  afterAll(async () => bridge?.[Symbol.asyncDispose]());

  const capabilities = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const request = (method: string, params: Record<string, unknown>) =>
    modernRequest(bridge.url, method, params, { capabilities });

  it('shows its questions on tasks/get and resumes on tasks/update; bad answers are refused', async () => {
    const marker = join(dir, 'modern');
    const created = await request('tools/call', { name: 'greet', arguments: { marker } });
    expect(created.json?.result?.resultType).toBe('task');
    const taskId = String(created.json?.result?.taskId);
    const waiting = await eventually(async () => {
      const task = (await request('tasks/get', { taskId })).json?.result;
      return task?.status === 'input_required' ? task : undefined;
    });
    expect(waiting.inputRequests).toEqual({
      who: {
        method: 'elicitation/create',
        params: expect.objectContaining({ mode: 'form', message: 'Who shall I greet?' }),
      },
    });

    const bad = await request('tasks/update', {
      taskId,
      inputResponses: { who: { action: 'accept', content: { name: 7 } } },
    });
    expect(bad.json?.error?.code).toBe(-32602);
    expect(bad.json?.error?.message).toContain('/name must be a string');
    expect(existsSync(marker)).toBe(false);

    const unknownOnly = await request('tasks/update', {
      taskId,
      inputResponses: { other: { action: 'decline' } },
    });
    expect(unknownOnly.json?.result).toBeDefined();
    expect((await request('tasks/get', { taskId })).json?.result?.status).toBe('input_required');

    const good = await request('tasks/update', {
      taskId,
      inputResponses: { who: { action: 'accept', content: { name: 'Uma' } } },
    });
    expect(good.json?.error).toBeUndefined();
    const done = await eventually(async () => {
      const task = (await request('tasks/get', { taskId })).json?.result;
      return task?.status === 'completed' ? task : undefined;
    });
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Hello, Uma!' }] });
    expect(readFileSync(marker, 'utf8')).toBe('hello Uma\n');
  });

  it('progress reported while a question waits leaves the task input_required, its question shown', async () => {
    const marker = join(dir, 'busy');
    const created = await request('tools/call', { name: 'ask_while_busy', arguments: { marker } });
    const taskId = String(created.json?.result?.taskId);
    await eventually(async () => existsSync(`${marker}.progressed`) || undefined);
    // The store is updated before the tool goes on to write its marker, so no wait is needed here.
    const task = (await request('tasks/get', { taskId })).json?.result;
    expect(task?.status).toBe('input_required');
    expect(Object.keys((task?.inputRequests as object | undefined) ?? {})).toEqual(['who']);
    await request('tasks/update', {
      taskId,
      inputResponses: { who: { action: 'accept', content: { name: 'Ida' } } },
    });
    const done = await eventually(async () => {
      const current = (await request('tasks/get', { taskId })).json?.result;
      return current?.status === 'completed' ? current : undefined;
    });
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Counted for Ida.' }] });
  });

  it('asks for missing arguments on tools/call first, and creates the task with the answers', async () => {
    const marker = join(dir, 'composed');
    const first = await request('tools/call', { name: 'note_task', arguments: { marker } });
    const round = first.json?.result as Record<string, unknown>;
    expect(round.resultType).toBe('input_required');
    expect(round).not.toHaveProperty('taskId');
    expect(Object.keys(round.inputRequests as object)).toEqual(['bridge_missing_arguments']);
    expect(existsSync(marker)).toBe(false);

    const second = await request('tools/call', {
      name: 'note_task',
      arguments: { marker },
      inputResponses: { bridge_missing_arguments: { action: 'accept', content: { title: 'buy milk' } } },
      requestState: round.requestState,
    });
    const created = second.json?.result as Record<string, unknown>;
    expect(created.resultType).toBe('task');
    expect(created).not.toHaveProperty('requestState');
    expect(created).not.toHaveProperty('inputRequests');
    const taskId = String(created.taskId);
    const done = await eventually(async () => {
      const task = (await request('tasks/get', { taskId })).json?.result;
      return task?.status === 'completed' ? task : undefined;
    });
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'noted buy milk' }] });
    expect(readFileSync(marker, 'utf8')).toBe('buy milk\n');

    // The same state again is a replay: refused, and no second task runs.
    const replay = await request('tools/call', {
      name: 'note_task',
      arguments: { marker },
      inputResponses: { bridge_missing_arguments: { action: 'accept', content: { title: 'again' } } },
      requestState: round.requestState,
    });
    expect(replay.json?.error?.code).toBe(-32602);
    // Missing arguments may be answered up front (they are the caller's to give anyway); only a
    // confirmation needs the state of the round that asked it (test/security/confirm-answers).
    const declined = await request('tools/call', {
      name: 'note_task',
      arguments: { marker },
      inputResponses: { bridge_missing_arguments: { action: 'decline' } },
    });
    expect(declined.json?.result?.isError).toBe(true);
    expect(readFileSync(marker, 'utf8')).toBe('buy milk\n');
  });

  it('stops asking when the task is cancelled, and runs nothing', async () => {
    const marker = join(dir, 'cancelled');
    const created = await request('tools/call', { name: 'greet', arguments: { marker } });
    const taskId = String(created.json?.result?.taskId);
    await eventually(async () =>
      (await request('tasks/get', { taskId })).json?.result?.status === 'input_required' ? true : undefined,
    );
    await request('tasks/cancel', { taskId });
    await eventually(async () =>
      (await request('tasks/get', { taskId })).json?.result?.status === 'cancelled' ? true : undefined,
    );
    await request('tasks/update', {
      taskId,
      inputResponses: { who: { action: 'accept', content: { name: 'Late' } } },
    });
    expect(existsSync(marker)).toBe(false);
  });
});
