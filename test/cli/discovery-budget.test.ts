// A program whose every command lists commands of its own, new names at each level (40 per level
// here: 40^6 at the sixth), is read 1,000 help texts deep at most: one warning says so. Without the
// bound, discovery ran probes for hours (18,000 in its first two minutes).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { tempDir } from './helpers.js';

it('stops discovery after 1,000 help texts, with one warning, and ends with a clear error', async () => {
  using dir = tempDir();
  const program = join(dir.path, 'tree');
  const probes = join(dir.path, 'probes');
  writeFileSync(
    program,
    [
      '#!/bin/sh',
      `echo "$*" >> "${probes}"`,
      'depth=$(($# - 1))',
      "printf 'Usage: tree [OPTIONS] COMMAND\\n\\nA command tree.\\n\\nCommands:\\n'",
      'i=0',
      'while [ $i -lt 40 ]; do printf \'  d%sc%s    Command %s\\n\' "$depth" "$i" "$i"; i=$((i + 1)); done',
      '',
    ].join('\n'),
  );
  chmodSync(program, 0o755);
  const child = spawn(process.execPath, [BRIDGE_BIN, 'inspect', 'cli', program, '--json'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, BRIDGE_CACHE_DIR: join(dir.path, 'cache') },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'close')) as [number | null];
  const warnings = stderr.split('\n').filter((line) => line.includes('discovery stopped'));
  expect(warnings).toEqual([
    `bridge warning: cli tree: skipped "tree": discovery stopped after 1,000 help texts with more commands listed; name the ones you need with --allow`,
  ]);
  // Besides the root's (its version, Cobra's completion, its help): one help text per command read,
  // 1,000 in all and not one more.
  const commands = readFileSync(probes, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('d'));
  expect(commands).toHaveLength(1_000);
  // The 40 groups of the first level and 960 of the second were read, the commands below them (the
  // tools) were not: there is nothing to serve, which the start says.
  expect(code).toBe(1);
  expect(stderr).toContain('no subcommand of tree is offered (discovery found 0)');
}, 120_000);
