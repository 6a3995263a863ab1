import { chmodSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { FAKE_CLI, tempDir } from './helpers.js';

// A start from a valid discovery cache runs no process at all: the program below records every
// time it is run, and the real `bridge cli` process is driven by the v1 client over stdio.
const dir = tempDir('bridge-cli-cached-');
afterAll(() => dir[Symbol.dispose]());
const runs = join(dir.path, 'runs.log');
const program = join(dir.path, 'recorded-cli');
writeFileSync(
  program,
  `#!${process.execPath}\nimport { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(runs)}, JSON.stringify(process.argv.slice(2)) + '\\n');\nawait import(${JSON.stringify(pathToFileURL(FAKE_CLI).href)});\n`,
);
chmodSync(program, 0o755);
writeFileSync(runs, '');

const ranSoFar = () => readFileSync(runs, 'utf8').split('\n').filter(Boolean).length;

async function toolNames(): Promise<string[]> {
  await using client = await connect('v1', 'stdio', {
    script: BRIDGE_BIN,
    args: ['cli', program, '--allow', 'echo', '--allow', 'lines'],
    env: { BRIDGE_CACHE_DIR: join(dir.path, 'cache') },
  });
  const { tools } = await client.listTools();
  return tools.map((tool) => tool.name).sort();
}

describe('cli discovery cache', () => {
  it('discovers once, then starts from the cache without running the program', async () => {
    const first = await toolNames();
    expect(first.length).toBeGreaterThanOrEqual(2);
    const discoveryRuns = ranSoFar();
    expect(discoveryRuns).toBeGreaterThan(0);
    expect(await toolNames()).toEqual(first);
    expect(ranSoFar()).toBe(discoveryRuns);
  });

  it('rediscovers when the program changes (a new modification time)', async () => {
    const before = ranSoFar();
    const later = new Date(Date.now() + 60_000);
    utimesSync(program, later, later);
    await toolNames();
    expect(ranSoFar()).toBeGreaterThan(before);
  });
});
