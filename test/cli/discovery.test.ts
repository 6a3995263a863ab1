import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { subcommandsFromUsage } from '../../adapters/cli/discover-git.js';
import { parseCommandList, parseHelpOptions } from '../../adapters/cli/parse-help.js';
import { loadCli, tempDir, textOf } from './helpers.js';

const cache = tempDir('bridge-cli-cache-');
process.env.BRIDGE_CACHE_DIR = cache.path;
afterAll(() => cache[Symbol.dispose]());

function help(file: string, args: string[]): string {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
  }
}

const byName = (options: ReturnType<typeof parseHelpOptions>) =>
  new Map(options.map((option) => [option.name, option]));

describe('the help parser', () => {
  it('reads git parse-options help (git cherry-pick -h)', () => {
    const options = byName(parseHelpOptions(help('git', ['cherry-pick', '-h'])));
    expect(options.get('mainline')).toMatchObject({ flag: '--mainline', kind: 'integer' });
    expect(options.get('gpg-sign')).toMatchObject({ kind: 'string', optionalValue: true });
    expect(options.get('no-commit')).toMatchObject({ kind: 'boolean', flag: '--no-commit' });
    expect(options.get('strategy-option')).toMatchObject({ kind: 'string' });
    expect(options.get('x')).toMatchObject({ flag: '-x', kind: 'boolean' });
    expect(options.get('x')?.description).toBe('append commit name');
  });

  it('finds git sub-subcommands in usage lines', () => {
    expect(subcommandsFromUsage('stash', help('git', ['stash', '-h']))).toEqual(
      expect.arrayContaining(['list', 'show', 'drop', 'pop', 'apply', 'branch', 'push']),
    );
    expect(subcommandsFromUsage('notes', help('git', ['notes', '-h']))).toEqual(
      expect.arrayContaining(['list', 'add', 'remove', 'prune']),
    );
    expect(subcommandsFromUsage('log', help('git', ['log', '-h']))).toEqual([]);
    expect(subcommandsFromUsage('diff', help('git', ['diff', '-h']))).toEqual([]);
  });

  it('reads GNU getopt help (grep --help)', () => {
    const options = byName(parseHelpOptions(help('grep', ['--help'])));
    expect(options.get('ignore-case')).toMatchObject({ flag: '--ignore-case', kind: 'boolean' });
    expect(options.get('max-count')).toMatchObject({ flag: '--max-count', kind: 'integer' });
    expect(options.get('regexp')).toMatchObject({ kind: 'string' });
    expect(options.get('color')).toMatchObject({ kind: 'string', optionalValue: true });
    expect(options.has('help')).toBe(false);
    expect(options.size).toBeGreaterThan(30);
  });

  it("reads kubectl's layout (default values, description on the next line)", () => {
    const options = byName(parseHelpOptions(help('kubectl', ['get', '--help'])));
    expect(options.get('all-namespaces')).toMatchObject({ flag: '--all-namespaces', kind: 'boolean' });
    expect(options.get('chunk-size')).toMatchObject({ kind: 'integer' });
    expect(options.get('filename')).toMatchObject({ kind: 'string', repeatable: true });
    expect(options.get('output')?.description).toMatch(/Output format/);
  });

  it('reads pflag help and command lists (docker image)', () => {
    const options = byName(parseHelpOptions(help('docker', ['image', 'ls', '--help'])));
    expect(options.get('all')).toMatchObject({ kind: 'boolean' });
    expect(options.get('format')).toMatchObject({ kind: 'string' });
    expect(options.get('filter')).toMatchObject({ kind: 'string' });
    const commands = parseCommandList(help('docker', ['image', '--help'])).map((entry) => entry.name);
    expect(commands).toEqual(expect.arrayContaining(['ls', 'rm', 'prune', 'pull', 'push']));
  });
});

describe('the generic adapter on another CLI on the machine', () => {
  it('serves grep as one typed tool and runs it', async () => {
    using work = tempDir();
    writeFileSync(join(work.path, 'notes.txt'), 'Hello world\nsecond line\n-dash line\n');
    await using cli = await loadCli({ program: 'grep' }, work.path);
    expect(cli.registry.tools.map((tool) => tool.name)).toEqual(['grep']);
    const schema = cli.registry.get('grep')?.definition.inputSchema as {
      properties: Record<string, { type: string }>;
    };
    expect(schema.properties['ignore-case']?.type).toBe('boolean');
    expect(schema.properties['max-count']?.type).toBe('integer');
    const found = await cli.call('grep', { 'ignore-case': true, args: ['hello', 'notes.txt'] });
    expect(found.structuredContent?.stdout).toBe('Hello world\n');
    const missing = await cli.call('grep', { args: ['absent', 'notes.txt'] });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent?.exitCode).toBe(1);
    // A pattern starting with "-" goes through the typed -e option, never as an operand.
    const dash = await cli.call('grep', { regexp: '-dash', args: ['notes.txt'] });
    expect(dash.structuredContent?.stdout).toBe('-dash line\n');
    const refused = await cli.call('grep', { args: ['-r', '.'] });
    expect(textOf(refused)).toContain('starts with "-"');
  });

  it('makes no subcommand of a name --allow gives a program whose help lists none', async () => {
    using work = tempDir();
    // grep's help is readable and lists no command: `grep --allow notes` offers nothing, rather
    // than a `grep_notes` tool read from `grep notes --help`.
    await expect(loadCli({ program: 'grep', allow: ['notes'] }, work.path)).rejects.toThrow(
      'leaves nothing to offer',
    );
  });
});

describe('the Cobra adapter on kubectl', () => {
  it('nests subcommands, keeps local ones closed-world and runs them offline', async () => {
    using work = tempDir();
    const kubeconfig = join(work.path, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c1, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: u1, user: {}}]',
        'contexts: [{name: dev, context: {cluster: c1, user: u1}}, {name: prod, context: {cluster: c1, user: u1}}]',
        'current-context: dev',
      ].join('\n'),
    );
    process.env.KUBECONFIG = kubeconfig;
    try {
      await using cli = await loadCli({ program: 'kubectl', allow: ['config', 'get', 'apply'] }, work.path);
      const names = cli.registry.tools.map((tool) => tool.name);
      // `kubectl config` only groups its subcommands; `kubectl apply -f` also runs on its own.
      expect(names).not.toContain('kubectl_config');
      expect(names).toEqual(expect.arrayContaining(['kubectl_apply', 'kubectl_apply_view_last_applied']));
      expect(cli.registry.get('kubectl_apply')?.definition.annotations).toMatchObject({
        openWorldHint: true,
      });
      expect(names).toEqual(
        expect.arrayContaining(['kubectl_config_view', 'kubectl_config_get_contexts', 'kubectl_get']),
      );
      expect(cli.registry.get('kubectl_config_get_contexts')?.definition.annotations).toMatchObject({
        readOnlyHint: true,
        openWorldHint: false,
      });
      expect(cli.registry.get('kubectl_get')?.definition.annotations).toMatchObject({
        readOnlyHint: true,
        openWorldHint: true,
      });
      expect(cli.registry.get('kubectl_config_delete_context')?.definition.annotations.destructiveHint).toBe(
        true,
      );
      const contexts = await cli.call('kubectl_config_get_contexts', { output: 'name' });
      expect(contexts.structuredContent?.stdout).toBe('dev\nprod\n');
      const current = await cli.call('kubectl_config_current_context', {});
      expect(current.structuredContent?.stdout).toBe('dev\n');
    } finally {
      delete process.env.KUBECONFIG;
    }
  });
});
