// Programs read their own configuration from the home directory, and a root often holds it (the
// default root is the working directory, where clients often start servers): one call writes
// ~/.curlrc or ~/.wgetrc, and every later call obeys it, reading or writing files no argument
// names. The real programs through the built bridge, each with HOME inside its root; checked on
// the answers, the outside directory and the process table.
import { once } from 'node:events';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientStdout, serveCliForTests, clientText as text } from '../cli/helpers.js';
import { processesUnder, snapshot } from './world.js';

const SECRET = `TOP-SECRET-${process.pid}`;
const home = (root: string) => ({ HOME: root });

const curl = serveCliForTests('curl', 'v1', 'stdio', {
  env: home,
  prepare: (root) => {
    writeFileSync(join(root, 'page.txt'), 'inside the root\n');
    writeFileSync(join(curl.outside, 'secret.txt'), `${SECRET}\n`);
    // As a call with `output: ".curlrc"` would have written it.
    writeFileSync(join(root, '.curlrc'), `url = "file://${join(curl.outside, 'secret.txt')}"\n`);
  },
});
const wget = serveCliForTests('wget', 'v2', 'http', {
  env: home,
  // A log file is written whatever --output-document says: the planted wgetrc is read or not.
  prepare: (root) =>
    writeFileSync(
      join(root, '.wgetrc'),
      `output_document = ${join(wget.outside, 'got')}\nlogfile = ${join(wget.outside, 'log')}\n`,
    ),
});
// sqlite3 finds the home directory in the password database, not in $HOME: no test can give it one
// of its own, so what it is given in place of ~/.sqliterc is read from the process table.
const sqlite3 = serveCliForTests('sqlite3', 'v1', 'stdio');

const server = createServer((_req, res) => res.end('served\n'));
let url = '';
beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`;
});
afterAll(() => {
  server.close();
});

describe("a program's configuration in a home directory inside the roots", () => {
  it('curl reads no ~/.curlrc: a planted one named another URL to fetch', async () => {
    const result = await curl.client().callTool('curl', { args: [`file://${join(curl.work, 'page.txt')}`] });
    expect(result.isError, text(result)).toBeFalsy();
    expect(clientStdout(result)).toBe('inside the root\n');
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('wget reads no ~/.wgetrc: a planted one wrote the download and its log outside the roots', async () => {
    const result = await wget.client().callTool('wget', { args: [url] });
    expect(result.isError, text(result)).toBeFalsy();
    expect(existsSync(join(wget.outside, 'got'))).toBe(false);
    expect(existsSync(join(wget.outside, 'log'))).toBe(false);
    // The planted output_document ignored, the download comes back as wget's standard output.
    expect(clientStdout(result)).toBe('served\n');
  });

  it('sqlite3 runs with -init /dev/null, so no ~/.sqliterc runs before safe mode', async () => {
    const running = sqlite3.client().callTool('sqlite3', {
      database: [':memory:'],
      sql: ['select usleep(1500000)'],
    });
    let seen: string[] = [];
    await expect
      .poll(
        () => {
          seen = processesUnder(sqlite3.work).filter((line) => line.includes('usleep'));
          return seen.length;
        },
        { timeout: 5_000, interval: 50 },
      )
      .toBe(1);
    expect(seen[0]).toMatch(/sqlite3 -safe -init \/dev\/null -cmd PRAGMA trusted_schema=OFF /);
    const result = await running;
    expect(result.isError, text(result)).toBeFalsy();
  });

  it('is warned about at start-up, naming the risk and what to do', () => {
    for (const served of [curl, wget]) {
      const log = served.client().stderr();
      expect(log).toContain(`holds the home directory ${served.work}`);
      expect(log).toContain('a command can write one there that later commands obey');
      expect(log).toContain('Root a project directory instead (--root DIR), or use --sandbox');
    }
    expect(sqlite3.client().stderr()).not.toContain('holds the home directory');
  });
});

describe("the home directory's configuration named by a path argument", () => {
  const refusal = 'which programs read from the home directory';

  it('is refused, to write it or to read it, however the path leads there', async () => {
    const { work } = curl;
    mkdirSync(join(work, '.ssh'));
    symlinkSync('.npmrc', join(work, 'alias'));
    const before = snapshot(work);
    const page = `file://${join(work, 'page.txt')}`;
    const answers: Array<{ row: string; isError: unknown; text: string }> = [];
    for (const row of [
      { output: '.gitconfig' },
      { output: '.GitConfig' },
      { output: '.npmrc' },
      { output: '~/.npmrc' },
      { output: 'alias' },
      { output: 'not-yet/../.bashrc' },
      // Sourced by Debian's ~/.bashrc, run at logout, and put on PATH by ~/.profile.
      { output: '.bash_aliases' },
      { output: '.zlogout' },
      { output: 'bin/git' },
      { output: '.local/bin/ls' },
      { output: '.config/git/config' },
      { output: '.ssh/authorized_keys' },
      { 'dump-header': '.wgetrc' },
      { 'netrc-file': '.netrc' },
      { cwd: '.ssh', output: 'config' },
    ]) {
      const result = await curl.client().callTool('curl', { ...row, args: [page] });
      answers.push({ row: JSON.stringify(row), isError: result.isError, text: text(result) });
    }
    expect(snapshot(work)).toEqual(before);
    for (const answer of answers) {
      expect(answer.isError, answer.row).toBe(true);
      expect(answer.text, answer.row).toContain(refusal);
    }
  });

  it('leaves a file of the same name elsewhere than the top of the home directory alone', async () => {
    const { work } = curl;
    mkdirSync(join(work, 'project'));
    const page = `file://${join(work, 'page.txt')}`;
    for (const output of ['project/.gitconfig', 'notes.txt']) {
      const result = await curl.client().callTool('curl', { output, args: [page] });
      expect(result.isError, text(result)).toBeFalsy();
      expect(existsSync(join(work, output))).toBe(true);
    }
  });
});
