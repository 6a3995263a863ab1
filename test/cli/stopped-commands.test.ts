// A command stopped by the bridge (timeout, cancellation) is an error even when the program traps
// SIGTERM and exits 0: the work it was asked to do is unfinished, and the model must not read the
// partial output as a success.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoadedCli, loadCli, tempDir, textOf } from './helpers.js';

const cache = tempDir('bridge-cli-cache-');
process.env.BRIDGE_CACHE_DIR = cache.path;
const work = tempDir();

// Prints "started" and a marker file once its TERM trap is set up, then waits; TERM makes it exit 0.
const program = join(work.path, 'trapper');
writeFileSync(
  program,
  `#!/bin/sh
if [ "$1" = "--help" ] || [ "$1" = "-h" ]; then
  printf 'Usage: trapper [MARKER]\\n\\nWaits until stopped; exits 0 on SIGTERM.\\n\\nOptions:\\n  --help  show help\\n'
  exit 0
fi
[ "$1" = "--" ] && shift
trap 'echo "stopping cleanly"; exit 0' TERM
echo started
[ -n "$1" ] && : > "$1"
while :; do sleep 0.05; done
`,
);
chmodSync(program, 0o755);

let cli: LoadedCli;
beforeAll(async () => {
  cli = await loadCli({ program, roots: [work.path] }, work.path);
});
afterAll(async () => {
  await cli?.[Symbol.asyncDispose]();
  work[Symbol.dispose]();
  cache[Symbol.dispose]();
});

describe('a stopped command that exits 0 on SIGTERM', () => {
  it('is an error at the timeout', async () => {
    const result = await cli.call('trapper', { timeout: 300 });
    expect(result.structuredContent?.exitCode).toBe(0);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('timed out after 300 ms');
    expect(textOf(result)).toContain('stopping cleanly');
  });

  it('is an error when cancelled', async () => {
    const marker = join(work.path, 'marker');
    const controller = new AbortController();
    const call = cli.call('trapper', { args: [marker] }, { signal: controller.signal });
    await expect.poll(() => existsSync(marker), { timeout: 5_000 }).toBe(true);
    controller.abort();
    const result = await call;
    expect(result.structuredContent?.exitCode).toBe(0);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('was cancelled');
  });
});
