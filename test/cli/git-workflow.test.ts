import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git, loadCli, makeRepo, tempDir, textOf } from './helpers.js';

const cache = tempDir('bridge-cli-cache-');
process.env.BRIDGE_CACHE_DIR = cache.path;
afterAll(() => cache[Symbol.dispose]());

describe('a write workflow through the git tools', () => {
  it('branches, commits, merges, tags, stashes and resets with operands after the right markers', async () => {
    using work = tempDir();
    const repo = makeRepo(work.path, 2);
    await using cli = await loadCli({ program: 'git' }, repo);
    const ok = async (name: string, args: Record<string, unknown>) => {
      const result = await cli.call(name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}: ${textOf(result)}`).toBeUndefined();
      return String(result.structuredContent?.stdout ?? '');
    };
    await ok('git_switch', { create: 'feature' });
    writeFileSync(join(repo, 'new.txt'), 'new\n');
    await ok('git_add', { paths: ['new.txt'] });
    await ok('git_commit', { message: ['Add new.txt', 'With a body; $(not run)'] });
    expect(git(repo, 'log', '-1', '--format=%B')).toBe('Add new.txt\n\nWith a body; $(not run)\n\n');
    await ok('git_checkout', { args: ['main'] });
    const beforeMerge = git(repo, 'rev-parse', 'HEAD');
    await ok('git_merge', { args: ['feature'], edit: false, ff: false });
    expect(readFileSync(join(repo, 'new.txt'), 'utf8')).toBe('new\n');
    await ok('git_tag', { args: ['v1.0'] });
    expect(await ok('git_describe', { tags: true })).toBe('v1.0\n');
    writeFileSync(join(repo, 'file.txt'), 'dirty\n');
    await ok('git_stash_push', { message: 'wip' });
    expect(await ok('git_stash_list', {})).toContain('wip');
    expect(readFileSync(join(repo, 'file.txt'), 'utf8')).toBe('line 2\n');
    await ok('git_stash_pop', {});
    await ok('git_reset', { hard: true, args: ['HEAD~1'] });
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(beforeMerge);
    expect(await ok('git_branch', { 'show-current': true })).toBe('main\n');
    expect(await ok('git_ls_files', {})).toBe('file.txt\n');
  });
});
