// Ways out of the roots that each program opens on its own terms, found by an attacker's review:
// a clone that writes a repository's config, a bare repository inside a work tree, paths a program
// resolves from another directory than cwd, a default protocol that makes a name a file, a backup
// suffix that is a path, and a dot-command that safe mode lets write. Real programs, assertions on
// the files and repositories they would have read or written.

import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git, loadCli, makeRepo, outsideWorld, textOf } from '../cli/helpers.js';
import { snapshot } from './world.js';

const world = outsideWorld('bridge-escapes-');
const { ROOT, OUT, SECRET } = world;
const BASE = world.base.path;
writeFileSync(join(ROOT, 'mine.txt'), 'mine\n');
mkdirSync(join(ROOT, 'a', 'b', 'c'), { recursive: true });
afterAll(() => world[Symbol.dispose]());

describe('git', () => {
  it('refuses a clone into a directory named .git, whose config would run programs', async () => {
    const source = makeRepo(mkdirOf(join(ROOT, 'source-repo')));
    await using cli = await loadCli({ program: 'git', roots: [ROOT] }, ROOT);
    for (const destination of ['proj/.git', 'proj/.GIT']) {
      const result = await cli.call('git_clone', { args: [source, destination] });
      expect(result.isError, textOf(result)).toBe(true);
      expect(textOf(result)).toContain('where a file written could make the program run commands');
    }
    expect(existsSync(join(ROOT, 'proj'))).toBe(false);
  });

  it('does not use a bare repository found inside the roots: its config would run programs', async () => {
    const marker = join(OUT, 'bare-ran');
    const bare = join(ROOT, 'victim', 'evil');
    mkdirSync(bare, { recursive: true });
    git(bare, 'init', '-q', '--bare');
    git(bare, 'config', 'core.fsmonitor', `touch ${marker}; false`);
    await using cli = await loadCli({ program: 'git', roots: [ROOT] }, ROOT);
    const result = await cli.call('git_status', { cwd: 'victim/evil' });
    expect(result.isError, textOf(result)).toBe(true);
    expect(textOf(result)).toContain('bare repository');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a repository path that climbs above cwd: git resolves it from the work tree top', async () => {
    const repo = makeRepo(mkdirOf(join(ROOT, 'repo')));
    mkdirSync(join(repo, 'a', 'b'), { recursive: true });
    const outside = makeRepo(mkdirOf(join(BASE, 'outrepo')));
    writeFileSync(join(outside, 'secret.txt'), SECRET);
    git(outside, 'add', 'secret.txt');
    git(outside, 'commit', '-q', '-m', 'secret');
    await using cli = await loadCli({ program: 'git', roots: [ROOT] }, ROOT);
    const fetched = await cli.call('git_fetch', { cwd: 'repo/a/b', args: ['../../outrepo', 'main:stolen'] });
    expect(fetched.isError, textOf(fetched)).toBe(true);
    expect(textOf(fetched)).toContain('climbs above cwd');
    expect(git(repo, 'branch', '--list', 'stolen')).toBe('');
    const pushed = await cli.call('git_push', { cwd: 'repo/a/b', args: ['../../outrepo', 'HEAD:planted'] });
    expect(pushed.isError, textOf(pushed)).toBe(true);
    expect(git(outside, 'branch', '--list', 'planted')).toBe('');
  });
});

describe('a directory option other paths are resolved from', () => {
  it('tar -C refuses operands that climb, and reads nothing outside', async () => {
    await using cli = await loadCli({ program: 'tar', roots: [ROOT] }, ROOT);
    const result = await cli.call('tar', {
      cwd: 'a/b/c',
      create: true,
      file: '-',
      directory: '../../..',
      args: ['../outside/secret.txt'],
    });
    expect(result.isError, textOf(result)).toBe(true);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('a value starting with ~ is checked as written too, and may not climb either', async () => {
    await using cli = await loadCli({ program: 'cat', roots: [ROOT] }, ROOT);
    const result = await cli.call('cat', { cwd: 'a/b/c', args: ['~/../../x'] });
    expect(result.isError, textOf(result)).toBe(true);
    expect(textOf(result)).toContain('climbs above cwd');
  });

  it('curl --output-dir with a climbing --output writes nothing outside', async () => {
    await using cli = await loadCli({ program: 'curl', roots: [ROOT] }, ROOT);
    const result = await cli.call('curl', {
      cwd: 'a/b/c',
      'output-dir': '../../..',
      output: '../pwned-by-curl',
      args: [`file://${join(ROOT, 'mine.txt')}`],
    });
    expect(result.isError, textOf(result)).toBe(true);
    expect(existsSync(join(BASE, 'pwned-by-curl'))).toBe(false);
  });
});

describe('options that turn a value into another file', () => {
  it('curl --proto-default is not offered: a name without a scheme would be a file URL', async () => {
    await using cli = await loadCli({ program: 'curl', roots: [ROOT] }, ROOT);
    const schema = cli.registry.get('curl')?.definition.inputSchema as { properties: object };
    expect(Object.keys(schema.properties)).not.toContain('proto-default');
    const result = await cli.call('curl', {
      'proto-default': 'file',
      args: [`localhost${join(OUT, 'secret.txt')}`],
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('curl --proxy-key and openssl s_client -unix are paths, checked against the roots', async () => {
    await using curl = await loadCli({ program: 'curl', roots: [ROOT] }, ROOT);
    const key = await curl.call('curl', {
      'proxy-key': join(OUT, 'secret.txt'),
      args: [`file://${join(ROOT, 'mine.txt')}`],
    });
    expect(textOf(key)).toContain('refused: proxy-key');
    await using openssl = await loadCli({ program: 'openssl', roots: [ROOT] }, ROOT);
    const socket = await openssl.call('openssl_s_client', { unix: join(OUT, 'agent.sock') });
    expect(textOf(socket)).toContain('refused: unix');
  });

  it('sed -i takes no backup suffix holding "/", which GNU sed reads as a path', async () => {
    writeFileSync(join(ROOT, 'bashrc'), 'echo planted\n');
    await using cli = await loadCli({ program: 'sed', roots: [ROOT] }, ROOT);
    const result = await cli.call('sed', {
      'in-place': `${OUT}/.*`,
      expression: 's/x/x/',
      args: ['bashrc'],
    });
    expect(result.isError, textOf(result)).toBe(true);
    expect(textOf(result)).toContain('in-place');
    expect(existsSync(join(OUT, '.bashrc'))).toBe(false);
    // A plain suffix keeps the backup beside the file.
    const kept = await cli.call('sed', {
      'in-place': '.bak',
      expression: 's/planted/kept/',
      args: ['bashrc'],
    });
    expect(kept.isError, textOf(kept)).toBeFalsy();
    expect(existsSync(join(ROOT, 'bashrc.bak'))).toBe(true);
  });

  it('sed -i takes no "*" in its suffix, which GNU sed replaces by the file name with its directories', async () => {
    mkdirSync(join(ROOT, 'sub'));
    writeFileSync(join(ROOT, 'sub', 'notes.txt'), 'notes\n');
    writeFileSync(join(ROOT, 'top.txt'), 'top\n');
    // What a clone brings: a link beside `sub`, at the name `bak_*` makes of `sub/notes.txt`.
    symlinkSync(OUT, join(ROOT, 'bak_sub'));
    const before = snapshot(BASE);
    await using cli = await loadCli({ program: 'sed', roots: [ROOT] }, ROOT);
    for (const [suffix, file] of [
      ['.*', './top.txt'],
      ['bak_*', 'sub/notes.txt'],
    ]) {
      const result = await cli.call('sed', { 'in-place': suffix, expression: 's/o/0/', args: [file] });
      expect(result.isError, textOf(result)).toBe(true);
      expect(textOf(result)).toContain('in-place');
    }
    // Neither `../top.txt` beside the root nor `notes.txt` in the directory outside was made.
    expect(snapshot(BASE)).toEqual(before);
  });

  it('sqlite3 refuses the dot-commands safe mode lets write files', async () => {
    await using cli = await loadCli({ program: 'sqlite3', roots: [ROOT] }, ROOT);
    for (const command of ['.trace', '.session s changeset', ' .TRACE']) {
      const target = join(OUT, `written-${command.trim().split(' ')[0]?.slice(1)}`);
      const result = await cli.call('sqlite3', {
        database: ':memory:',
        sql: [`${command} ${target}`, 'SELECT 1 /*\ntouch planted\n*/;'],
      });
      expect(result.isError, textOf(result)).toBe(true);
      expect(textOf(result)).toContain(
        '.trace, .session, .testcase, .check, .iotrace, .selftest and .dbconfig',
      );
      expect(existsSync(target)).toBe(false);
    }
    const plain = await cli.call('sqlite3', { database: ':memory:', sql: ['.tables', 'SELECT 41 + 1'] });
    expect(textOf(plain)).toContain('42');
  });
});

function mkdirOf(path: string): string {
  mkdirSync(path, { recursive: true });
  return path;
}
