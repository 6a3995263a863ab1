// No orphans: whatever a command starts — in its process group, in a new session through setsid,
// as a double-forked daemon — is gone when its call ends, is cut by a timeout or cancelled, and,
// with --sandbox, when the bridge itself is killed with SIGKILL. Checked on the process table.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { type LoadedCli, loadCli, tempDir } from '../cli/helpers.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { processesUnder } from './world.js';

const cache = tempDir('bridge-cli-cache-');
process.env.BRIDGE_CACHE_DIR = cache.path;
const work = tempDir('bridge-orphans-');
afterAll(() => {
  work[Symbol.dispose]();
  cache[Symbol.dispose]();
});

// Every mode leaves something behind that the process-group kill alone would miss.
const program = join(work.path, 'spawner');
writeFileSync(
  program,
  `#!/bin/sh
case "$1" in --help|-h) printf 'Usage: spawner MODE\\n\\nStarts processes that try to outlive it.\\n\\nOptions:\\n  --help  show help\\n'; exit 0;; esac
[ "$1" = "--" ] && shift
case "$1" in
  setsid-exit) setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo started ;;
  setsid-holding-stdout) setsid sleep 1000 & echo started ;;
  daemon) setsid sh -c 'sleep 1000 & exec sleep 1000' </dev/null >/dev/null 2>&1 & echo started ;;
  setsid-then-hang) setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo started; while :; do sleep 0.05; done ;;
esac
`,
);
chmodSync(program, 0o755);

const nothingLeft = () => expect.poll(() => processesUnder(work.path), { timeout: 10_000 }).toEqual([]);

const modes = [
  { mode: 'setsid-exit', stopped: false },
  { mode: 'setsid-holding-stdout', stopped: false },
  { mode: 'daemon', stopped: false },
  { mode: 'setsid-then-hang', stopped: true },
];

describe.each([{ sandbox: false }, { sandbox: true }])(
  'a command that escapes its group, sandbox $sandbox',
  ({ sandbox }) => {
    let cli: LoadedCli;
    afterAll(async () => {
      await cli?.[Symbol.asyncDispose]();
    });

    it.each(modes)('$mode: nothing is left when the call ends', async ({ mode, stopped }) => {
      cli ??= await loadCli(
        { program, roots: [work.path], ...(sandbox ? { sandbox: true } : {}) },
        work.path,
      );
      const result = await cli.call('spawner', { args: [mode], ...(stopped ? { timeout: 500 } : {}) });
      expect(result.structuredContent?.stdout).toContain('started');
      expect(result.isError ?? false).toBe(stopped);
      await nothingLeft();
    });

    it('a cancelled call leaves nothing', async () => {
      const controller = new AbortController();
      const call = cli.call('spawner', { args: ['setsid-then-hang'] }, { signal: controller.signal });
      await expect.poll(() => processesUnder(work.path).length, { timeout: 5_000 }).toBeGreaterThan(1);
      controller.abort();
      expect((await call).isError).toBe(true);
      await nothingLeft();
    });
  },
);

describe('kill -9 of the bridge with --sandbox', () => {
  it('takes every running command with it (PID namespace, --die-with-parent)', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BRIDGE_BIN, 'cli', program, '--root', work.path, '--sandbox', '--no-watch'],
      env: { ...(process.env as Record<string, string>), BRIDGE_CACHE_DIR: cache.path },
      cwd: cache.path,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'orphans', version: '1' });
    await client.connect(transport);
    const call = client
      .callTool({ name: 'spawner', arguments: { args: ['setsid-then-hang'] } })
      .catch(() => {});
    // The command's own child running means bwrap is set up (its parent-death signal set): a kill
    // while bwrap is still starting is a window no sandbox can close, and not what this checks.
    await expect
      .poll(() => processesUnder(work.path).some((line) => line.endsWith(': sleep 1000 ')), {
        timeout: 10_000,
      })
      .toBe(true);
    process.kill(transport.pid as number, 'SIGKILL');
    await nothingLeft();
    await call;
    await client.close().catch(() => {});
  });
});
