// Programs resolve a relative path from other directories than cwd: tar after --directory, curl
// under --output-dir, git from the work tree's top, wget under a name it picks from the URL. A
// repository cloned into the roots brings symbolic links there (`lnk -> outside`,
// `out -> outside`, a dangling `pwn -> outside/x`): each value must stay inside the roots from
// every such directory. Real programs behind the built bridge, two clients and wires; the
// assertions are on the files outside the roots, the repository there and every output.

import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientStdout, git, makeRepo, tempDir } from '../cli/helpers.js';
import { type ClientKind, connect, type TestClient } from '../helpers/connect.js';
import { BRIDGE_BIN, type Wire } from '../helpers/start-bridge.js';
import { processesUnder, snapshot } from './world.js';

const base = tempDir('bridge-bases-');
const cache = tempDir('bridge-bases-cache-');
const ROOT = join(base.path, 'root');
const OUT = join(base.path, 'outside');
const SECRET = `TOP-SECRET-${process.pid}-${Date.now()}`;
const PROJ = join(ROOT, 'proj');

mkdirSync(ROOT);
mkdirSync(OUT);
writeFileSync(join(OUT, 'secret.txt'), `${SECRET}\n`);
writeFileSync(join(OUT, 'victim.txt'), 'still here\n');
makeRepo(mkdirOf(join(OUT, 'repo')));
writeFileSync(join(ROOT, 'payload.txt'), 'payload\n');
mkdirSync(join(ROOT, 'data'));
writeFileSync(join(ROOT, 'data', 'pwn'), 'payload\n');
// The repository an agent clones: links to the outside, committed, and a subdirectory.
const ORIGIN = makeRepo(mkdirOf(join(base.path, 'origin')));
symlinkSync(OUT, join(ORIGIN, 'lnk'));
symlinkSync(OUT, join(ORIGIN, 'out'));
symlinkSync(join(OUT, 'repo'), join(ORIGIN, 'outrepo'));
symlinkSync(join(OUT, 'pwned-by-remote-name'), join(ORIGIN, 'pwn'));
symlinkSync(join(OUT, 'pwned-by-wget'), join(ORIGIN, 'wget-pwn'));
mkdirSync(join(ORIGIN, 'sub'));
writeFileSync(join(ORIGIN, 'sub', 'notes.txt'), 'notes\n');
git(ORIGIN, 'add', '-A');
git(ORIGIN, 'commit', '-qm', 'links');
git(ROOT, 'clone', '-q', ORIGIN, 'proj');
const before = snapshot(OUT);
const outputs: string[] = [];

// What wget and curl download: a file under /out/ (wget -x makes `out/` of it) and one named pwn.
const server = createServer((request, response) => response.end(`served ${request.url}\n`));
let site = '';
beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  base[Symbol.dispose]();
  cache[Symbol.dispose]();
});

const combos: Array<{ kind: ClientKind; wire: Wire }> = [
  { kind: 'v1', wire: 'stdio' },
  { kind: 'v2', wire: 'http' },
];

describe.each(combos)('paths resolved from other directories, $kind client over $wire', ({ kind, wire }) => {
  const clients: TestClient[] = [];
  const serve = async (program: string, ...args: string[]) => {
    const client = await connect(kind, wire, {
      script: BRIDGE_BIN,
      args: ['cli', program, '--root', ROOT, '--no-watch', ...args],
      env: { BRIDGE_CACHE_DIR: cache.path },
      cwd: cache.path,
    });
    clients.push(client);
    return client;
  };
  const call = async (client: TestClient, name: string, args: Record<string, unknown>) => {
    const result = await client.callTool(name, args);
    outputs.push(JSON.stringify(result));
    return { result, text: String(result.content[0]?.text) };
  };
  afterAll(async () => {
    for (const client of clients) await client[Symbol.asyncDispose]();
  });

  it('curl: an --output under --output-dir that leads out through a link is refused', async () => {
    const curl = await serve('curl');
    const { result, text } = await call(curl, 'curl', {
      cwd: ROOT,
      'output-dir': 'proj',
      output: 'out/curl-wrote-this',
      args: [`file://${join(ROOT, 'payload.txt')}`],
    });
    expect(result.isError, text).toBe(true);
    expect(text).toContain(
      `refused: output "out/curl-wrote-this" resolves from ${PROJ} (named by output-dir) to ${join(OUT, 'curl-wrote-this')}`,
    );
    expect(existsSync(join(OUT, 'curl-wrote-this'))).toBe(false);
    // A name picked from the URL reaches no check: --remote-name is not offered.
    const named = await call(curl, 'curl', {
      cwd: ROOT,
      'output-dir': 'proj',
      'remote-name': true,
      args: [`file://${join(ROOT, 'data', 'pwn')}`],
    });
    expect(named.result.isError, named.text).toBe(true);
    expect(existsSync(join(OUT, 'pwned-by-remote-name'))).toBe(false);
    // Inside, --output-dir still works.
    const kept = await call(curl, 'curl', {
      cwd: ROOT,
      'output-dir': 'proj',
      output: 'fetched.txt',
      args: [`file://${join(ROOT, 'payload.txt')}`],
    });
    expect(kept.result.isError, kept.text).toBeFalsy();
    expect(readFileSync(join(PROJ, 'fetched.txt'), 'utf8')).toBe('payload\n');
  });

  it('tar: members after --directory that lead out through a link are neither archived nor removed', async () => {
    const tar = await serve('tar');
    const archived = await call(tar, 'tar', {
      cwd: ROOT,
      create: true,
      file: `stolen-${kind}.tar`,
      directory: 'proj',
      args: ['lnk/secret.txt'],
    });
    expect(archived.result.isError, archived.text).toBe(true);
    expect(archived.text).toContain(
      `resolves from ${PROJ} (named by directory) to ${join(OUT, 'secret.txt')}`,
    );
    expect(existsSync(join(ROOT, `stolen-${kind}.tar`))).toBe(false);
    const removed = await call(tar, 'tar', {
      cwd: ROOT,
      create: true,
      file: `removed-${kind}.tar`,
      directory: 'proj',
      'remove-files': true,
      args: ['out/victim.txt'],
    });
    expect(removed.result.isError, removed.text).toBe(true);
    expect(readFileSync(join(OUT, 'victim.txt'), 'utf8')).toBe('still here\n');
    const kept = await call(tar, 'tar', {
      cwd: ROOT,
      create: true,
      file: `kept-${kind}.tar`,
      directory: 'proj',
      args: ['sub/notes.txt'],
    });
    expect(kept.result.isError, kept.text).toBeFalsy();
    expect(execFileSync('tar', ['-tf', join(ROOT, `kept-${kind}.tar`)], { encoding: 'utf8' })).toBe(
      'sub/notes.txt\n',
    );
  });

  it("git: values it resolves from the work tree's top, above cwd, do not lead out through a link", async () => {
    const client = await serve('git', '--allow', 'blame,log,push');
    const cwd = join(PROJ, 'sub');
    for (const [name, args] of [
      ['git_blame', { contents: 'lnk/secret.txt', paths: ['notes.txt'] }],
      ['git_blame', { 'ignore-revs-file': 'lnk/secret.txt', paths: ['notes.txt'] }],
      ['git_log', { paths: ['lnk/secret.txt'] }],
      ['git_push', { args: ['outrepo', `HEAD:refs/heads/planted-${kind}`] }],
    ] as const) {
      const { result, text } = await call(client, name, { cwd, ...args });
      expect(result.isError, text).toBe(true);
      expect(text).toContain(`resolves from ${PROJ} (above cwd`);
    }
    expect(git(join(OUT, 'repo'), 'branch', '--list', `planted-${kind}`)).toBe('');
    // A path git takes from cwd, and one from the top that stays inside, still work.
    const blamed = await call(client, 'git_blame', { cwd, paths: ['notes.txt'] });
    expect(blamed.result.isError, blamed.text).toBeFalsy();
    expect(clientStdout(blamed.result)).toContain('notes');
    const logged = await call(client, 'git_log', { cwd, paths: ['notes.txt'], oneline: true });
    expect(logged.result.isError, logged.text).toBeFalsy();
    expect(clientStdout(logged.result)).toContain('links');
    // Each directory up to the root costs a walk per value: a cwd far below it is refused.
    const deep = join(PROJ, ...Array.from({ length: 70 }, () => 'd'));
    mkdirSync(deep, { recursive: true });
    const far = await call(client, 'git_log', { cwd: deep, paths: ['x'] });
    expect(far.result.isError, far.text).toBe(true);
    expect(far.text).toContain('more than 64 directories');
  });

  it('wget: never names a file itself, so a URL path or a planted link leads nowhere outside', async () => {
    const wget = await serve('wget');
    // -x makes `out/` of the URL's path, and `out` is the link.
    const forced = await call(wget, 'wget', {
      cwd: PROJ,
      quiet: true,
      'force-directories': true,
      'no-host-directories': true,
      args: [`${site}/out/wget-pwn.txt`],
    });
    expect(forced.result.isError, forced.text).toBeFalsy();
    expect(clientStdout(forced.result)).toBe('served /out/wget-pwn.txt\n');
    expect(existsSync(join(OUT, 'wget-pwn.txt'))).toBe(false);
    // A name taken from the URL's last part is a dangling link to the outside.
    const plain = await call(wget, 'wget', { cwd: PROJ, quiet: true, args: [`${site}/wget-pwn`] });
    expect(plain.result.isError, plain.text).toBeFalsy();
    expect(existsSync(join(OUT, 'pwned-by-wget'))).toBe(false);
    const prefixed = await call(wget, 'wget', {
      cwd: PROJ,
      'directory-prefix': 'out',
      args: [`${site}/x`],
    });
    expect(prefixed.text).toContain(`refused: directory-prefix "out" resolves to ${OUT}`);
    // A file the call names is checked, and written where it says.
    const named = await call(wget, 'wget', {
      cwd: PROJ,
      quiet: true,
      'output-document': `got-${kind}.txt`,
      args: [`${site}/page`],
    });
    expect(named.result.isError, named.text).toBeFalsy();
    expect(readFileSync(join(PROJ, `got-${kind}.txt`), 'utf8')).toBe('served /page\n');
  });

  it('left the world as it was: nothing written or removed outside, no secret in any output, no process', async () => {
    expect(snapshot(OUT)).toEqual(before);
    for (const text of outputs) expect(text).not.toContain(SECRET);
    await expect.poll(() => processesUnder(base.path), { timeout: 5_000 }).toEqual([]);
  });
});

function mkdirOf(path: string): string {
  mkdirSync(path, { recursive: true });
  return path;
}
