// A cloned tree is the attacker's to shape: it can hold symbolic links into a repository outside
// the roots (`steal/objects -> /outside/repo/.git/objects`), which `git fetch ./steal` read and
// `git push ./steal` wrote, and a bare layout with hooks (`evil/hooks/pre-receive`), which a push
// into it ran, however the repository was named. The real git through the built bridge (v1 client
// on stdio); checked on the outside repository, the markers hooks would leave and the answers.
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, makeRepo, serveCliForTests, clientText as text } from '../cli/helpers.js';
import { processesUnder, snapshot } from './world.js';

const SECRET = `TOP-SECRET-${process.pid}`;
const { work, outside, client } = serveCliForTests('git', 'v1', 'stdio', {
  args: ['--allow', 'clone,fetch,push,remote,send-pack,branch'],
  prepare: (root) => {
    // The attacker's repository, as a clone brings it: links out, and a bare layout with a hook.
    const attacker = join(root, 'attacker.git');
    mkdirSync(attacker);
    git(attacker, 'init', '-q', '--bare', '-b', 'main');
    const files: Array<[string, string, string]> = [
      ['100644', 'README', 'nothing to see\n'],
      ['100644', 'steal/HEAD', 'ref: refs/heads/main\n'],
      ['120000', 'steal/objects', join(outside, 'repo', '.git', 'objects')],
      ['120000', 'steal/refs', join(outside, 'repo', '.git', 'refs')],
      ['100644', 'evil/HEAD', 'ref: refs/heads/main\n'],
      ['100644', 'evil/config', '[core]\n\trepositoryformatversion = 0\n\tbare = true\n'],
      ['100644', 'evil/objects/info/keep', ''],
      ['100644', 'evil/refs/heads/keep', ''],
      ['100755', 'evil/hooks/pre-receive', `#!/bin/sh\ntouch ${join(outside, 'hook-ran')}\n`],
    ];
    let stream = 'commit refs/heads/main\ncommitter A <a@example.com> 1700000000 +0000\ndata 5\nevil\n';
    for (const [mode, path, content] of files) {
      stream += `M ${mode} inline ${path}\ndata ${Buffer.byteLength(content)}\n${content}\n`;
    }
    execFileSync('git', ['fast-import', '--quiet'], { cwd: attacker, input: stream });
    // A repository in the roots with a hook of its own: pushing to a clone's origin runs it.
    writeFileSync(
      join(attacker, 'hooks', 'pre-receive'),
      `#!/bin/sh\ntouch ${join(outside, 'origin-hook-ran')}\n`,
    );
    chmodSync(join(attacker, 'hooks', 'pre-receive'), 0o755);
  },
});
// The repository outside the roots, holding the secret.
const outsideRepo = join(outside, 'repo');
mkdirSync(outsideRepo);
makeRepo(outsideRepo);
writeFileSync(join(outsideRepo, 'secret.txt'), `${SECRET}\n`);
git(outsideRepo, 'add', 'secret.txt');
git(outsideRepo, 'commit', '-qm', 'secret');

describe('git and the repositories a cloned tree can hold', () => {
  const before = snapshot(outside);
  const answers: string[] = [];
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client().callTool(name, args);
    answers.push(JSON.stringify(result));
    return result;
  };
  const victim = () => join(work, 'victim');

  it('checks symbolic links out as plain files, so no fetch or push goes through them', async () => {
    const cloned = await call('git_clone', { args: ['attacker.git', 'victim'] });
    expect(cloned.isError, text(cloned)).toBeFalsy();
    expect(lstatSync(join(victim(), 'steal', 'objects')).isSymbolicLink()).toBe(false);
    const fetched = await call('git_fetch', { cwd: 'victim', args: ['./steal', 'main:refs/heads/stolen'] });
    expect(fetched.isError).toBe(true);
    expect(git(victim(), 'branch', '--list', 'stolen')).toBe('');
    const pushed = await call('git_push', { cwd: 'victim', args: ['./steal', 'HEAD:refs/heads/planted'] });
    expect(pushed.isError).toBe(true);
    expect(git(outsideRepo, 'branch', '--list', 'planted')).toBe('');
  });

  it('pushes to no local repository, however it is named: its hooks would run', async () => {
    const added = await call('git_remote_add', { cwd: 'victim', args: ['evil', './evil'] });
    expect(added.isError, text(added)).toBeFalsy();
    for (const [name, args] of [
      ['git_push', ['./evil', 'HEAD:refs/heads/a']],
      ['git_push', [`file://${join(victim(), 'evil')}`, 'HEAD:refs/heads/b']],
      ['git_push', ['evil', 'HEAD:refs/heads/c']],
      ['git_push', ['origin', 'HEAD:refs/heads/d']],
      ['git_send_pack', ['./evil', 'refs/heads/main']],
    ] as const) {
      const label = `${name} ${args.join(' ')}`;
      const result = await call(name, { cwd: 'victim', args });
      expect(readdirSync(outside), label).toEqual(['repo']);
      expect(result.isError, label).toBe(true);
      expect(text(result), label).toContain("transport 'file' not allowed");
    }
  });

  it('still fetches from a local repository inside the roots (upload-pack runs no hook)', async () => {
    const fetched = await call('git_fetch', {
      cwd: 'victim',
      args: [join(work, 'attacker.git'), 'main:refs/heads/fetched'],
    });
    expect(fetched.isError, text(fetched)).toBeFalsy();
    expect(git(victim(), 'branch', '--list', 'fetched')).toContain('fetched');
  });

  it('left the world as it was: no hook run, nothing outside read or written, no process', async () => {
    for (const answer of answers) expect(answer).not.toContain(SECRET);
    expect(snapshot(outside)).toEqual(before);
    await expect.poll(() => processesUnder(work), { timeout: 5_000 }).toEqual([]);
  });
});
