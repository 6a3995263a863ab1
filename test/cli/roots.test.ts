// The client's MCP roots confine `cwd` on top of --root: a real `bridge cli git` process, the v1
// SDK client declaring roots and answering roots/list.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connect } from '../helpers/connect.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';
import { eventually } from '../tasks/helpers.js';
import { makeRepo, tempDir } from './helpers.js';

type Result = {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
  structuredContent?: unknown;
};

describe('MCP roots from the client', () => {
  it('confine cwd to the client’s roots inside --root, and follow roots/list_changed', async () => {
    using dir = tempDir();
    using cache = tempDir('bridge-cli-cache-');
    mkdirSync(join(dir.path, 'alpha'));
    mkdirSync(join(dir.path, 'beta'));
    const alpha = makeRepo(join(dir.path, 'alpha'));
    const beta = makeRepo(join(dir.path, 'beta'));
    let roots = [alpha];

    const client = new Client(
      { name: 'roots-test', version: '1' },
      { capabilities: { roots: { listChanged: true } } },
    );
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots.map((root) => ({ uri: pathToFileURL(root).href, name: root })),
    }));
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BRIDGE_BIN, 'cli', 'git', '--root', dir.path, '--allow', 'rev-parse,log', '--no-watch'],
        env: { ...(process.env as Record<string, string>), BRIDGE_CACHE_DIR: cache.path },
        stderr: 'pipe',
      }),
    );
    try {
      const call = (args: Record<string, unknown>) =>
        client.callTool({ name: 'git_rev_parse', arguments: { ...args } }) as Promise<Result>;

      // No cwd: the first client root, not the first --root.
      const here = await call({ 'show-toplevel': true });
      expect(here.isError).toBeFalsy();
      expect(here.content[0]?.text?.trim()).toBe(alpha);

      // Inside --root but outside the client's roots: refused, saying why.
      const refused = await call({ 'show-toplevel': true, cwd: beta });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toContain("outside the client's roots");

      // A task is held to the same roots (read when the task is created).
      const created = await client.request(
        { method: 'tools/call', params: { name: 'git_log', arguments: { cwd: beta }, task: {} } },
        CreateTaskResultSchema,
      );
      const taskResult = await client.experimental.tasks.getTaskResult(
        created.task.taskId,
        CallToolResultSchema,
      );
      expect(taskResult.isError).toBe(true);
      expect(JSON.stringify(taskResult.content)).toContain("outside the client's roots");

      // The client moves its root; after list_changed the bridge asks again.
      roots = [beta];
      await client.sendRootsListChanged();
      await expect
        .poll(async () => (await call({ 'show-toplevel': true })).content[0]?.text?.trim(), {
          timeout: 5_000,
        })
        .toBe(beta);
    } finally {
      await client.close();
    }
  });

  it('come through input_required rounds for a 2026-07-28 client', async () => {
    using dir = tempDir();
    using cache = tempDir('bridge-cli-cache-');
    mkdirSync(join(dir.path, 'alpha'));
    mkdirSync(join(dir.path, 'beta'));
    const alpha = makeRepo(join(dir.path, 'alpha'));
    const beta = makeRepo(join(dir.path, 'beta'));
    let asked = 0;
    await using client = await connect(
      'v2',
      'stdio',
      {
        script: BRIDGE_BIN,
        args: ['cli', 'git', '--root', dir.path, '--allow', 'rev-parse', '--no-watch'],
        env: { BRIDGE_CACHE_DIR: cache.path },
      },
      {
        capabilities: { roots: {} },
        async answer() {
          asked++;
          return { roots: [{ uri: pathToFileURL(alpha).href, name: 'alpha' }] };
        },
      },
    );
    const here = await client.callTool('git_rev_parse', { 'show-toplevel': true });
    expect(here.isError).toBeFalsy();
    expect(String(here.content[0]?.text).trim()).toBe(alpha);
    const refused = await client.callTool('git_rev_parse', { 'show-toplevel': true, cwd: beta });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toContain("outside the client's roots");
    // Stateless: each call asks again.
    expect(asked).toBe(2);
  });

  it('confine a 2026-07-28 task too: it asks for them on tasks/get and runs after tasks/update', async () => {
    using dir = tempDir();
    using cache = tempDir('bridge-cli-cache-');
    mkdirSync(join(dir.path, 'alpha'));
    mkdirSync(join(dir.path, 'beta'));
    const alpha = makeRepo(join(dir.path, 'alpha'));
    const beta = makeRepo(join(dir.path, 'beta'));
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['cli', 'git', '--root', dir.path, '--allow', 'log', '--no-watch'],
      env: { BRIDGE_CACHE_DIR: cache.path },
    });
    const capabilities = { roots: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const request = (method: string, params: Record<string, unknown>) =>
      modernRequest(bridge.url, method, params, { capabilities });
    // git log is long-running: offered as a task, which this client accepts.
    const runTask = async (args: Record<string, unknown>) => {
      const created = await request('tools/call', { name: 'git_log', arguments: args });
      expect(created.json?.result?.resultType).toBe('task');
      const taskId = String(created.json?.result?.taskId);
      const waiting = await eventually(async () => {
        const task = (await request('tasks/get', { taskId })).json?.result;
        return task?.status === 'input_required' ? task : undefined;
      });
      const [key, question] =
        Object.entries(waiting.inputRequests as Record<string, { method: string }>)[0] ?? [];
      expect(question?.method).toBe('roots/list');
      const answered = await request('tasks/update', {
        taskId,
        inputResponses: { [key as string]: { roots: [{ uri: pathToFileURL(alpha).href, name: 'alpha' }] } },
      });
      expect(answered.json?.error).toBeUndefined();
      return eventually(async () => {
        const task = (await request('tasks/get', { taskId })).json?.result;
        return task?.status === 'completed' ? (task.result as Result) : undefined;
      });
    };
    const inside = await runTask({ 'max-count': 1 });
    expect(inside.isError).toBeFalsy();
    const outside = await runTask({ 'max-count': 1, cwd: beta });
    expect(outside.isError).toBe(true);
    expect(outside.content[0]?.text).toContain("outside the client's roots");
  });
});
