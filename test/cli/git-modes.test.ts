import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, type LoadedCli, loadCli, makeRepo, tempDir } from './helpers.js';

const cache = tempDir('bridge-cli-cache-');

describe('multi-mode git commands split by mode (real git)', () => {
  const work = tempDir();
  let repo: string;
  let cli: LoadedCli;
  const previous = process.env.BRIDGE_CACHE_DIR;

  beforeAll(async () => {
    process.env.BRIDGE_CACHE_DIR = cache.path;
    repo = makeRepo(join(work.path), 3);
    git(repo, 'remote', 'add', 'origin', 'https://example.invalid/repo.git');
    cli = await loadCli(
      { program: 'git', allow: ['branch', 'tag', 'remote', 'stash', 'worktree', 'config', 'status'] },
      repo,
    );
  });
  afterAll(async () => {
    await cli?.[Symbol.asyncDispose]();
    process.env.BRIDGE_CACHE_DIR = previous;
    work[Symbol.dispose]();
    cache[Symbol.dispose]();
  });

  const annotations = (name: string) => cli.registry.get(name)?.definition.annotations;
  const properties = (name: string) =>
    Object.keys((cli.registry.get(name)?.definition.inputSchema.properties ?? {}) as object);

  it('serves each mode as a tool next to the generic one', () => {
    const names = cli.registry.tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'git_branch',
        'git_branch_list',
        'git_branch_show_current',
        'git_branch_create',
        'git_branch_delete',
        'git_branch_rename',
        'git_tag',
        'git_tag_list',
        'git_tag_create',
        'git_tag_delete',
        'git_remote',
        'git_remote_get_url',
        'git_remote_remove',
        'git_stash',
        'git_stash_list',
        'git_stash_drop',
        'git_worktree',
        'git_worktree_list',
        'git_worktree_remove',
        'git_config',
        'git_config_get',
        'git_config_list',
        'git_config_set',
        'git_config_unset',
      ]),
    );
    expect(cli.registry.get('git_branch_list')?.definition.title).toBe('git branch --list');
    expect(cli.log.lines.filter((line) => line.startsWith('warning'))).toEqual([]);
  });

  it('hints each mode for what it does: listing needs no approval, deleting is destructive', () => {
    expect(annotations('git_branch_list')).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(annotations('git_branch_delete')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(annotations('git_branch')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(annotations('git_tag_list')).toMatchObject({ readOnlyHint: true });
    expect(annotations('git_tag_delete')).toMatchObject({ destructiveHint: true });
    expect(annotations('git_remote_get_url')).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(annotations('git_stash_list')).toMatchObject({ readOnlyHint: true });
    expect(annotations('git_stash_drop')).toMatchObject({ destructiveHint: true });
    expect(annotations('git_worktree_list')).toMatchObject({ readOnlyHint: true });
    expect(annotations('git_config_get')).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(annotations('git_config_set')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('gives each mode only the options that apply to it', () => {
    expect(properties('git_branch_list')).toEqual(expect.arrayContaining(['all', 'contains', 'patterns']));
    expect(properties('git_branch_list')).not.toContain('delete');
    expect(properties('git_branch_list')).not.toContain('force');
    expect(properties('git_branch_delete')).toEqual(expect.arrayContaining(['force', 'branches']));
    expect(properties('git_branch_create')).not.toContain('force');
    expect(cli.registry.get('git_branch_delete')?.definition.inputSchema.required).toEqual(['branches']);
  });

  it('runs the mode it names', async () => {
    const created = await cli.call('git_branch_create', { args: ['feature', 'HEAD~1'] });
    expect(created.isError).toBeUndefined();
    const listed = await cli.call('git_branch_list', { patterns: ['feat*'] });
    expect(String(listed.structuredContent?.stdout)).toBe('  feature\n');
    const current = await cli.call('git_branch_show_current', {});
    expect(current.structuredContent?.stdout).toBe('main\n');
    const deleted = await cli.call('git_branch_delete', { branches: ['feature'], force: true });
    expect(deleted.isError).toBeUndefined();
    expect(git(repo, 'branch', '--list')).toBe('* main\n');

    await cli.call('git_tag_create', { args: ['v1.0'], message: ['first'] });
    expect(git(repo, 'cat-file', '-t', 'v1.0')).toBe('tag\n');
    const tags = await cli.call('git_tag_list', {});
    expect(tags.structuredContent?.stdout).toBe('v1.0\n');
    await cli.call('git_tag_delete', { tags: ['v1.0'] });
    expect(git(repo, 'tag')).toBe('');

    const url = await cli.call('git_remote_get_url', { args: ['origin'] });
    expect(url.structuredContent?.stdout).toBe('https://example.invalid/repo.git\n');
    const name = await cli.call('git_config_get', { args: ['user.name'] });
    expect(name.structuredContent?.stdout).toBe('Test User\n');
    await cli.call('git_config_set', { args: ['bridge.test', 'yes'] });
    expect(git(repo, 'config', '--get', 'bridge.test')).toBe('yes\n');
    await cli.call('git_config_unset', { args: ['bridge.test'] });
    const gone = await cli.call('git_config_get', { args: ['bridge.test'] });
    expect(gone.isError).toBe(true);
    expect(gone.structuredContent?.exitCode).toBe(1);
  });

  it("discovers in a scratch repository: nothing in the user's repository changes", async () => {
    using dirty = tempDir();
    makeRepo(dirty.path, 2);
    writeFileSync(join(dirty.path, 'file.txt'), 'local change\n');
    const before = git(dirty.path, 'count-objects', '-v');
    await using fresh = await loadCli({ program: 'git', allow: ['stash'], cache: false }, dirty.path);
    expect(fresh.registry.get('git_stash_create')).toBeDefined();
    // `git stash create -h` makes a stash commit where it runs: not here.
    expect(git(dirty.path, 'count-objects', '-v')).toBe(before);
    expect(git(dirty.path, 'fsck', '--unreachable', '--no-reflogs')).toBe('');
    expect(fresh.log.lines.filter((line) => line.startsWith('warning'))).toEqual([]);
  });

  it('--deny names a single mode', async () => {
    await using limited = await loadCli({ program: 'git', allow: ['branch'], deny: ['branch delete'] }, repo);
    const names = limited.registry.tools.map((tool) => tool.name);
    expect(names).toContain('git_branch_list');
    expect(names).not.toContain('git_branch_delete');
  });
});
