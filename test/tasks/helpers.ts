import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { connect } from '../helpers/connect.js';
import { distPath, type Wire } from '../helpers/start-bridge.js';

/** A directory where the tasks server writes the pid of every process it starts; removed on dispose. */
export function pidDirectory(): { path: string; pids(): number[] } & Disposable {
  const path = mkdtempSync(join(tmpdir(), 'bridge-task-pids-'));
  return {
    path,
    pids: () => readdirSync(path).map(Number),
    [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** Starts the tasks server and connects the v1 SDK client (initialize era) over `wire`. */
export async function connectV1(wire: Wire, pidDir?: string) {
  const client = await connect('v1', wire, {
    script: distPath('test/servers/tasks-server.js'),
    args: [],
    ...(pidDir ? { env: { TASKS_PID_DIR: pidDir } } : {}),
  });
  return Object.assign(client, { v1: client.raw as ClientV1 });
}

/** Whether a process with this pid is alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every 25 ms until it returns a value other than undefined, or fails after `ms`. */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  ms = 5_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await sleep(25);
  }
}
