// The CLI adapter's long-running commands run as tasks through the same path as any tool: the real
// `bridge cli git` command, a real repository, and a real HTTP remote that never answers.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { eventually } from './helpers.js';

let dir: string;
let client: Client;
const hung: IncomingMessage[] = [];
// A remote that accepts the request and never answers: `git ls-remote` against it runs until killed.
const remote = createServer((request) => {
  hung.push(request);
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-cli-tasks-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git(
    '-c',
    'user.name=T',
    '-c',
    'user.email=t@example.com',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'first task commit',
  );
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  client = new Client({ name: 'cli-tasks', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BRIDGE_BIN, 'cli', 'git', '--allow', 'log', '--allow', 'ls-remote', '--no-cache'],
      cwd: dir,
      env: { ...(process.env as Record<string, string>), BRIDGE_CACHE_DIR: join(dir, '.cache') },
      stderr: 'ignore',
    }),
  );
});

afterAll(async () => {
  await client?.close();
  for (const request of hung) request.socket.destroy();
  await new Promise((resolve) => remote.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Pids of live processes whose command line mentions `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('CLI adapter tools as 2025-11-25 tasks', () => {
  it('offers long-running git commands as optional tasks and runs one', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'git_log')?.execution).toEqual({ taskSupport: 'optional' });
    const created = await client.request(
      { method: 'tools/call', params: { name: 'git_log', arguments: { oneline: true }, task: {} } },
      CreateTaskResultSchema,
    );
    const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain('first task commit');
  });

  it('kills the command’s processes when its task is cancelled', async () => {
    const url = `http://127.0.0.1:${(remote.address() as AddressInfo).port}/never.git`;
    const created = await client.request(
      { method: 'tools/call', params: { name: 'git_ls_remote', arguments: { args: [url] }, task: {} } },
      CreateTaskResultSchema,
    );
    await eventually(() => (hung.length > 0 ? true : undefined), 10_000);
    expect(processesWith(url).length).toBeGreaterThan(0);
    const closed = new Promise((resolve) => hung[0]?.socket.once('close', resolve));
    const cancelled = await client.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled.status).toBe('cancelled');
    await closed;
    await eventually(() => (processesWith(url).length === 0 ? true : undefined));
    expect((await client.experimental.tasks.getTask(created.task.taskId)).status).toBe('cancelled');
  });
});
