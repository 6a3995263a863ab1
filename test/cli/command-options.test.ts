import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runsCommand } from '../../adapters/cli/infer-runners.js';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { tempDir } from './helpers.js';

// An option whose value is a program to run would run what the caller writes: tar's
// --checkpoint-action=exec=… and --to-command go through /bin/sh. Found in any CLI's help, such
// options are not offered unless --allow-option names them. The real GNU tar, over HTTP.
const work = tempDir('bridge-runners-');
const cache = tempDir('bridge-runners-cache-');
writeFileSync(join(work.path, 'a.txt'), 'a');
afterAll(() => {
  for (const dir of [work, cache]) dir[Symbol.dispose]();
});

const serve = (...extra: string[]) => ({
  script: BRIDGE_BIN,
  args: ['cli', 'tar', '--root', work.path, '--no-watch', ...extra],
  env: { BRIDGE_CACHE_DIR: cache.path },
  cwd: work.path,
});

type Listed = { name: string; description?: string; inputSchema: { properties: Record<string, unknown> } };

describe('options that run a program', () => {
  it('are not offered, say so, and a call naming one runs nothing', async () => {
    await using client = await connect('v2', 'http', serve());
    const tar = (await client.listTools()).tools.find((tool) => tool.name === 'tar') as unknown as Listed;
    const runners = ['to-command', 'checkpoint-action', 'use-compress-program', 'info-script', 'rsh-command'];
    for (const name of runners) expect(tar.inputSchema.properties[name], name).toBeUndefined();
    expect(tar.description).toMatch(/Not offered for safety: [^\n]*--to-command/);
    expect(tar.inputSchema.properties.create).toBeDefined();
    // An option tar lists is itself, not an abbreviation of a dangerous one (--checkpoint-action).
    expect(tar.inputSchema.properties.checkpoint).toBeDefined();

    const marker = join(work.path, 'ran');
    const result = await client.callTool('tar', {
      create: true,
      file: 'out.tar',
      checkpoint: '1',
      'checkpoint-action': `exec=touch ${marker}`,
      args: ['a.txt'],
    });
    expect(result.isError).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(work.path, 'out.tar'))).toBe(false);
  });

  it('are offered when --allow-option names one, and only that one', async () => {
    await using client = await connect('v2', 'http', serve('--allow-option', 'to-command'));
    const tar = (await client.listTools()).tools.find((tool) => tool.name === 'tar') as unknown as Listed;
    expect(tar.inputSchema.properties['to-command']).toBeDefined();
    expect(tar.inputSchema.properties['checkpoint-action']).toBeUndefined();
  });

  it('are told by their placeholder, their name or what their help says they do', () => {
    const option = (name: string, placeholder: string | undefined, description: string) => ({
      name,
      flag: `--${name}`,
      kind: 'string' as const,
      description,
      ...(placeholder ? { placeholder } : {}),
    });
    expect(runsCommand(option('compress-program', 'PROG', 'compress temporaries with PROG'))).toBe(true);
    expect(runsCommand(option('post-renderer', 'string', 'the path to an executable to be used'))).toBe(true);
    expect(runsCommand(option('checkpoint-action', 'ACTION', 'execute ACTION on each checkpoint'))).toBe(
      true,
    );
    expect(runsCommand(option('eval', 'STRING', 'Evaluate STRING as a makefile statement'))).toBe(true);
    // Not a program: a file, a format, a count; and a boolean never is.
    expect(runsCommand(option('output', 'FILE', 'write to FILE instead of stdout'))).toBe(false);
    expect(runsCommand(option('format', 'FORMAT', 'print in this format'))).toBe(false);
    expect(
      runsCommand({ name: 'no-ignore-command-error', flag: '--no-ignore-command-error', kind: 'boolean' }),
    ).toBe(false);
  });
});
