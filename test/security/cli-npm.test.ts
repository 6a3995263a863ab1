// npm reads what its operands and a project's .npmrc say, wherever that is: `npm view /outside/pkg`
// printed a package.json outside the roots, and a .npmrc brought by a clone ran its own `git=`
// script, read any file as `userconfig=` (printing its lines as unknown keys), wrote the cache and
// logs elsewhere and listed the global packages (`location=global`). The real npm through the built
// bridge (v1 client on stdio), no registry reached; checked on the outside directory and answers.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCliForTests, clientText as text } from '../cli/helpers.js';
import { processesUnder, snapshot } from './world.js';

const SECRET = `TOP-SECRET-${process.pid}`;
const { work, outside, client } = serveCliForTests('npm', 'v1', 'stdio', {
  args: ['--allow', 'view,ls,install'],
  env: { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
  prepare: (root) => {
    const project = join(root, 'proj');
    writeJson(join(project, 'package.json'), { name: 'proj', version: '1.0.0' });
    mkdirSync(join(project, 'tools'));
    writeFileSync(join(project, 'tools', 'git.sh'), `#!/bin/sh\ntouch ${join(outside, 'ran')}\nexit 1\n`);
    chmodSync(join(project, 'tools', 'git.sh'), 0o755);
    writeFileSync(
      join(project, '.npmrc'),
      [
        'git=./tools/git.sh',
        'editor=./tools/git.sh',
        'browser=./tools/git.sh',
        `userconfig=${join(outside, 'secret.txt')}`,
        `globalconfig=${join(outside, 'secret.txt')}`,
        `cache=${join(outside, 'cache')}`,
        `logs-dir=${join(outside, 'logs')}`,
        `prefix=${join(outside, 'global')}`,
        'location=global',
        '',
      ].join('\n'),
    );
  },
});
writeFileSync(join(outside, 'secret.txt'), `${SECRET}\n`);
writeJson(join(outside, 'pkg', 'package.json'), {
  name: 'outside-pkg',
  version: '1.0.0',
  description: SECRET,
});
writeJson(join(outside, 'global', 'lib', 'node_modules', 'outside-global', 'package.json'), {
  name: 'outside-global',
  version: '1.0.0',
});

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

describe("npm and what a project's .npmrc or a package spec names", () => {
  const before = snapshot(outside);
  const answers: string[] = [];
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client().callTool(name, args);
    answers.push(JSON.stringify(result));
    return result;
  };

  it('npm view takes registry specs only: no path, tarball, file:, git or URL spec', async () => {
    for (const spec of [
      join(outside, 'pkg'),
      `file:${join(outside, 'pkg')}`,
      '../outside/pkg',
      `x@file:${join(outside, 'pkg')}`,
      'x@../../outside/pkg',
      'git+ssh://git@example.invalid/x.git',
      'github:user/repo',
      'user/repo',
      'https://example.invalid/x.tgz',
      'x.tgz',
    ]) {
      const result = await call('npm_view', { cwd: 'proj', args: [spec] });
      expect(result.isError, spec).toBe(true);
      expect(text(result), spec).toContain('Invalid arguments');
    }
  });

  it("a project's .npmrc runs no program of its own and reads and writes nothing outside", async () => {
    const listed = await call('npm_ls', { cwd: 'proj' });
    expect(listed.isError, text(listed)).toBeFalsy();
    expect(text(listed)).toContain('proj@1.0.0');
    // Resolving a git spec runs npm's `git`: the real one, which finds no such host.
    const installed = await call('npm_install', {
      cwd: 'proj',
      'dry-run': true,
      'ignore-scripts': true,
      args: ['git+ssh://git@example.invalid/x.git'],
    });
    expect(installed.isError).toBe(true);
  });

  it('left the world as it was: nothing outside read, written or run, no process', async () => {
    for (const answer of answers) {
      expect(answer).not.toContain(SECRET);
      expect(answer).not.toContain('outside-global');
    }
    expect(snapshot(outside)).toEqual(before);
    await expect.poll(() => processesUnder(work), { timeout: 5_000 }).toEqual([]);
  });
});
