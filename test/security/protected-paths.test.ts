// A command run for a caller can rewrite a protected file in place and put its modification time
// back (`cp -p`, `touch -r`): the change time still moves, and the reload refuses the file.
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandStarted, commandThatChanged, protectPaths } from '../../src/protected-paths.js';

const dir = mkdtempSync(join(tmpdir(), 'bridge-protected-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a protected file a command changed', () => {
  it('is known even with its size, inode and modification time as they were', async () => {
    const config = join(dir, 'bridge.config.yaml');
    writeFileSync(config, 'program: cp\n');
    utimesSync(config, 1_000_000, 1_000_000); // whole seconds: set back exactly below
    const before = statSync(config);
    protectPaths([config]);
    // Past the file system's time resolution, so that the change time can differ.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const ended = commandStarted('cp -p stage/bridge.config.yaml .');
    writeFileSync(config, 'program: rm\n'); // in place: same inode, same size
    utimesSync(config, 1_000_000, 1_000_000);
    ended();
    const after = statSync(config);
    expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
    expect(await commandThatChanged([config])).toEqual({
      file: config,
      command: 'cp -p stage/bridge.config.yaml .',
    });
  });
});
