import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolAnnotations } from '../../src/index.js';
import { FAKE_CLI, type LoadedCli, loadCli, tempDir } from './helpers.js';

// Real CLIs without an overlay: every hint is inferred from the words of the command path and its
// description. R = readOnly, D = destructive, I = idempotent, O = openWorld; '-' = false.
// Judgement per command: what a careful reviewer would approve without asking.

/** buf (npm @bufbuild/buf), a Cobra CLI: groups down to four levels, a --write mode. */
const BUF_TABLE: Array<[string, string]> = [
  ['lint', 'R-I-'],
  ['format', 'R-I-'],
  ['format write', '--I-'],
  ['ls-files', 'R-I-'],
  ['breaking', 'R-IO'],
  ['stats', 'R-IO'],
  ['build', '----'],
  ['export', '----'],
  ['config init', '--I-'],
  ['config ls-lint-rules', 'R-I-'],
  ['config ls-breaking-rules', 'R-I-'],
  ['config ls-modules', 'R-I-'],
  ['config migrate', '----'],
  ['dep graph', 'R-IO'],
  ['curl', '---O'],
  ['generate', '---O'],
  ['registry login', '---O'],
  ['registry whoami', 'R-IO'],
  ['registry module create', '---O'],
  ['registry module delete', '-DIO'],
  ['registry module info', 'R-IO'],
  ['registry module deprecate', '---O'],
  ['registry module commit list', 'R-IO'],
  ['registry module commit info', 'R-IO'],
  ['registry module commit add-label', '--IO'],
  ['registry module label archive', '---O'],
  ['registry organization delete', '-DIO'],
  ['beta price', 'R-IO'],
  ['beta registry webhook list', 'R-IO'],
  ['beta registry webhook delete', '-DIO'],
];

/** pip, a plain --help CLI with command groups (`pip cache`, `pip config`). */
const PIP_TABLE: Array<[string, string]> = [
  ['list', 'R-I-'],
  ['show', 'R-I-'],
  ['check', 'R-I-'],
  ['freeze', 'R-I-'],
  ['inspect', 'R-I-'],
  ['hash', 'R-I-'],
  ['search', 'R-IO'],
  ['index', 'R-IO'],
  ['download', '---O'],
  ['install', '---O'],
  ['uninstall', '-D--'],
  ['wheel', '----'],
  ['cache dir', 'R-I-'],
  ['cache list', 'R-I-'],
  ['cache remove', '-DI-'],
  ['cache purge', '-D--'],
  ['config get', 'R-I-'],
  ['config list', 'R-I-'],
  ['config set', '-DI-'],
  ['config unset', '-DI-'],
];

function code(annotations: ToolAnnotations | undefined): string {
  return [
    annotations?.readOnlyHint ? 'R' : '-',
    annotations?.destructiveHint ? 'D' : '-',
    annotations?.idempotentHint ? 'I' : '-',
    annotations?.openWorldHint ? 'O' : '-',
  ].join('');
}

const BUF = fileURLToPath(new URL('../../node_modules/.bin/buf', import.meta.url));
const cache = tempDir('bridge-cli-cache-');
const work = tempDir();
const previous = process.env.BRIDGE_CACHE_DIR;
beforeAll(() => {
  process.env.BRIDGE_CACHE_DIR = cache.path;
});
afterAll(() => {
  process.env.BRIDGE_CACHE_DIR = previous;
  cache[Symbol.dispose]();
  work[Symbol.dispose]();
});

describe('buf (Cobra), discovered from the real binary', () => {
  let cli: LoadedCli;
  beforeAll(async () => {
    cli = await loadCli({ program: BUF }, work.path);
  });
  afterAll(async () => cli?.[Symbol.asyncDispose]());

  it.each(BUF_TABLE)('buf %s → %s', (command, expected) => {
    const name = `buf_${command.replace(/[ -]/g, '_')}`;
    expect(cli.registry.get(name), name).toBeDefined();
    expect(code(cli.registry.get(name)?.definition.annotations)).toBe(expected);
  });

  it('expands groups at any depth, never serves a group, keeps one-space names', () => {
    const names = cli.registry.tools.map((tool) => tool.name);
    expect(names).toContain('buf_registry_module_commit_add_label');
    expect(names).toContain('buf_beta_buf_plugin_v1beta1');
    expect(names).toContain('buf_registry_module_undeprecate');
    for (const group of [
      'buf_registry',
      'buf_registry_module',
      'buf_registry_module_commit',
      'buf_beta',
      'buf_config',
    ]) {
      expect(names).not.toContain(group);
    }
    expect(cli.log.lines.filter((line) => line.startsWith('warning'))).toEqual([]);
  });

  it('offers format without --write as a reader and buf_format_write as the writer', async () => {
    const reader = Object.keys(cli.registry.get('buf_format')?.definition.inputSchema.properties ?? {});
    expect(reader).not.toContain('write');
    expect(cli.registry.get('buf_format_write')?.definition.title).toBe('buf format --write');
    expect(cli.registry.get('buf_lint')?.definition.inputSchema.properties).toMatchObject({
      'error-format': { type: 'string', enum: expect.arrayContaining(['text', 'json']) },
    });
  });
});

describe('pip (plain --help), discovered from the real program', () => {
  let cli: LoadedCli;
  beforeAll(async () => {
    cli = await loadCli(
      { program: 'pip', allow: [...new Set(PIP_TABLE.map(([command]) => command))] },
      work.path,
    );
  });
  afterAll(async () => cli?.[Symbol.asyncDispose]());

  it.each(PIP_TABLE)('pip %s → %s', (command, expected) => {
    const name = `pip_${command.replace(/[ -]/g, '_')}`;
    expect(cli.registry.get(name), name).toBeDefined();
    expect(code(cli.registry.get(name)?.definition.annotations)).toBe(expected);
  });

  it('serves the commands of a group, not the group', () => {
    const names = cli.registry.tools.map((tool) => tool.name);
    expect(names).not.toContain('pip_cache');
    expect(cli.registry.get('pip_cache_purge')?.definition.description).toMatch(
      /^Remove all items from the cache/,
    );
  });
});

/** Single-command programs (coreutils), each discovered from its own --help. */
const COREUTILS_TABLE: Array<[string, string]> = [
  ['head', 'R-I-'],
  ['wc', 'R-I-'],
  ['cat', 'R-I-'],
  // "Output pieces of FILE to PREFIXaa": writes files, whatever the first verb says.
  ['split', '----'],
  ['csplit', '----'],
  ['sort', '----'],
  ['tee', '----'],
];

describe('single-command programs, discovered from the real programs', () => {
  it.each(COREUTILS_TABLE)('%s → %s', async (program, expected) => {
    await using cli = await loadCli({ program }, work.path);
    expect(code(cli.registry.get(program)?.definition.annotations)).toBe(expected);
  });
});

describe('programs reached through a symbolic link, and commands that cannot be discovered', () => {
  it('names the tools after the link and warns about each command whose help does not come', async () => {
    using bin = tempDir('bridge-link-');
    symlinkSync(FAKE_CLI, join(bin.path, 'mytool'));
    await using cli = await loadCli({ program: join(bin.path, 'mytool'), probeTimeoutMs: 1_500 }, work.path);
    const names = cli.registry.tools.map((tool) => tool.name);
    expect(names).toContain('mytool_echo');
    expect(names.every((name) => name.startsWith('mytool_'))).toBe(true);
    expect(cli.log.lines).toContainEqual(expect.stringMatching(/^warning: .*skipped "mytool wait"/));
  });
});
