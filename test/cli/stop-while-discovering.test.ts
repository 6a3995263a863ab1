// A signal that arrives while a CLI's discovery runs gives up the discovery: its probes are stopped
// as a cancelled command is (SIGTERM to their process groups, which a probe here records), where the
// bridge used to wait out 2 s and SIGKILL them on its way out; it ends with exit code 0 and leaves
// none of them running.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { tempDir } from './helpers.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('SIGTERM during discovery: exit 0, no probe left running', async () => {
  using dir = tempDir();
  const pids = join(dir.path, 'pids');
  const program = join(dir.path, 'slowhelp');
  const stopped = join(dir.path, 'stopped');
  // Each probe writes its pid and that of a child that would outlive it, notes a SIGTERM, then waits.
  writeFileSync(
    program,
    `#!/bin/sh\ntrap 'echo term >> "${stopped}"; exit 143' TERM\necho $$ >> "${pids}"\nsleep 60 &\necho $! >> "${pids}"\nwait\n`,
  );
  chmodSync(program, 0o755);
  const child = spawn(process.execPath, [BRIDGE_BIN, 'cli', program], {
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { ...process.env, BRIDGE_CACHE_DIR: join(dir.path, 'cache') },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  while (!existsSync(pids) || readFileSync(pids, 'utf8').split('\n').length < 3) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill('SIGTERM');
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  // Killed with their process groups before the bridge ended (nothing reaps them afterwards but
  // init, which is quick; wait for that, never for a live one).
  const started = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
  expect(started.length).toBeGreaterThanOrEqual(2);
  for (let tries = 0; started.some(alive) && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(started.filter(alive)).toEqual([]);
  // Given up, not waited out: the probe heard SIGTERM before anything killed it.
  expect(existsSync(stopped) && readFileSync(stopped, 'utf8')).toContain('term');
  expect(stderr).not.toMatch(/error/i);
});
