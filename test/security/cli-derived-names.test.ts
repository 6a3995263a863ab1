// A program writes files whose names it derives from a path argument rather than is given: cp
// copies into `DIR/<base name of SRC>`, wget's `--warc-file x` writes `x.warc.gz`. A clone or an
// archive plants a link at that name leading outside the roots. Real programs behind the built
// bridge, two clients and wires; the assertions are on the files outside the roots.

import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENTRIES } from '../../adapters/cli/find-derived-names.js';
import { clientText, serveCliForTests } from '../cli/helpers.js';
import type { ClientKind } from '../helpers/connect.js';
import type { Wire } from '../helpers/start-bridge.js';
import { snapshot } from './world.js';

const server = createServer((request, response) => response.end(`served ${request.url}\n`));
let site = '';
beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

const combos: Array<{ kind: ClientKind; wire: Wire }> = [
  { kind: 'v1', wire: 'stdio' },
  { kind: 'v2', wire: 'http' },
];

describe.each(combos)('names derived from a path argument, $kind client over $wire', ({ kind, wire }) => {
  // A victim outside the roots, and links in the root to it (what a clone or an archive brings).
  const plant = (root: string, victims: string, links: string[]) => {
    writeFileSync(join(victims, 'victim.txt'), 'still here\n');
    for (const name of links) symlinkSync(join(victims, 'victim.txt'), join(root, name));
  };

  const cp = serveCliForTests('cp', kind, wire, {
    prepare: (root) => {
      writeFileSync(join(root, 'payload.txt'), 'payload\n');
      mkdirSync(join(root, 'cloned'));
      mkdirSync(join(root, 'clean'));
      mkdirSync(join(root, 'tree', 'sub'), { recursive: true });
      writeFileSync(join(root, 'tree', 'sub', 'deep.txt'), 'deep payload\n');
      // What a cloned tree brings: the same tree already copied once, with a link deep inside it.
      mkdirSync(join(root, 'copies', 'tree', 'sub'), { recursive: true });
      mkdirSync(join(root, 'flat', 'sub'), { recursive: true });
      plant(root, cp.outside, ['cloned/payload.txt', 'copies/tree/sub/deep.txt', 'flat/sub/deep.txt']);
      // A link on the way to where --parents copies `tree/sub/deep.txt`: `parents/tree` leads out.
      mkdirSync(join(root, 'parents'));
      symlinkSync(cp.outside, join(root, 'parents', 'tree'));
      // A tree copied with --parents, where a link waits at one of its names.
      mkdirSync(join(root, 'copies2', 'tree', 'sub'), { recursive: true });
      plant(root, cp.outside, ['copies2/tree/sub/deep.txt']);
    },
  });

  it('cp: copying into a directory whose entry of that name is a link leading out is refused', async () => {
    const before = snapshot(cp.outside);
    const result = await cp.client().callTool('cp', { args: ['payload.txt', 'cloned'] });
    const text = clientText(result);
    expect(result.isError, text).toBe(true);
    expect(text).toContain(
      `refused: args[0] "payload.txt" leads the program to ${join(cp.work, 'cloned', 'payload.txt')} (what a program copying, moving or linking into args[1] "cloned" writes), a symbolic link to ${join(cp.outside, 'victim.txt')}, which is outside the allowed roots`,
    );
    expect(readFileSync(join(cp.outside, 'victim.txt'), 'utf8')).toBe('still here\n');
    expect(snapshot(cp.outside)).toEqual(before);
    // A directory without such a link is copied into.
    const kept = await cp.client().callTool('cp', { args: ['payload.txt', 'clean/'] });
    expect(kept.isError, clientText(kept)).toBeFalsy();
    expect(readFileSync(join(cp.work, 'clean', 'payload.txt'), 'utf8')).toBe('payload\n');
  });

  it('cp -r: copying a tree into a directory holding a link at one of its names, at any depth, is refused', async () => {
    const before = snapshot(cp.outside);
    for (const [source, into, link] of [
      ['tree', 'copies', join('copies', 'tree', 'sub', 'deep.txt')],
      ['tree/.', 'flat', join('flat', 'sub', 'deep.txt')],
    ] as const) {
      const result = await cp.client().callTool('cp', { recursive: true, args: [source, into] });
      const text = clientText(result);
      expect(result.isError, text).toBe(true);
      expect(text).toContain(
        `refused: args[0] "${source}" leads the program to ${join(cp.work, link)} (what a program copying it recursively into args[1] "${into}" writes), a symbolic link to ${join(cp.outside, 'victim.txt')}, which is outside the allowed roots`,
      );
    }
    expect(readFileSync(join(cp.outside, 'victim.txt'), 'utf8')).toBe('still here\n');
    expect(snapshot(cp.outside)).toEqual(before);
    // A tree without such a link is copied, into a directory that already holds part of it too.
    mkdirSync(join(cp.work, 'again', 'tree', 'sub'), { recursive: true });
    const kept = await cp.client().callTool('cp', { recursive: true, args: ['tree', 'again'] });
    expect(kept.isError, clientText(kept)).toBeFalsy();
    expect(readFileSync(join(cp.work, 'again', 'tree', 'sub', 'deep.txt'), 'utf8')).toBe('deep payload\n');
  });

  it('cp -T and cp --parents: the names they write are checked too', async () => {
    const before = snapshot(cp.outside);
    // -T copies the tree into the destination itself, as `tree/.` does.
    const into = await cp
      .client()
      .callTool('cp', { recursive: true, 'no-target-directory': true, args: ['tree', 'flat'] });
    expect(into.isError, clientText(into)).toBe(true);
    expect(clientText(into)).toContain(
      `refused: args[0] "tree" leads the program to ${join(cp.work, 'flat', 'sub', 'deep.txt')} (what a program copying it recursively into args[1] "flat" writes), a symbolic link to ${join(cp.outside, 'victim.txt')}`,
    );
    // --parents writes `parents/tree/sub/deep.txt`, through the link `parents/tree`.
    const parents = await cp
      .client()
      .callTool('cp', { parents: true, args: ['tree/sub/deep.txt', 'parents'] });
    expect(parents.isError, clientText(parents)).toBe(true);
    expect(clientText(parents)).toContain(
      `refused: args[0] "tree/sub/deep.txt" leads the program to ${join(cp.work, 'parents', 'tree', 'sub', 'deep.txt')} (what a program copying it with its parent directories into args[1] "parents" writes), a symbolic link to ${join(cp.outside, 'sub', 'deep.txt')}, which is outside the allowed roots`,
    );
    // `..` as given: cp writes `parents/tree/../payload.txt`, which the link `parents/tree` takes
    // to the directory holding the one outside.
    const dots = await cp
      .client()
      .callTool('cp', { parents: true, args: ['tree/../payload.txt', 'parents'] });
    expect(dots.isError, clientText(dots)).toBe(true);
    expect(clientText(dots)).toContain(
      `(what a program copying it with its parent directories into args[1] "parents" writes), a symbolic link to ${join(cp.outside, '..', 'payload.txt').replace(/\/[^/]+\/\.\.\//, '/')}`,
    );
    // A tree copied with its parents goes below `DIR/<path as given>`, links there included.
    const tree = await cp
      .client()
      .callTool('cp', { parents: true, recursive: true, args: ['tree/sub', 'copies2'] });
    expect(tree.isError, clientText(tree)).toBe(true);
    expect(clientText(tree)).toContain(
      `leads the program to ${join(cp.work, 'copies2', 'tree', 'sub', 'deep.txt')} (what a program copying it with its parent directories into args[1] "copies2" writes), a symbolic link to ${join(cp.outside, 'victim.txt')}`,
    );
    expect(existsSync(join(cp.outside, 'sub'))).toBe(false);
    expect(readFileSync(join(cp.outside, 'victim.txt'), 'utf8')).toBe('still here\n');
    expect(snapshot(cp.outside)).toEqual(before);
    // Without a link on the way, --parents copies.
    mkdirSync(join(cp.work, 'plain'));
    const kept = await cp.client().callTool('cp', { parents: true, args: ['tree/sub/deep.txt', 'plain'] });
    expect(kept.isError, clientText(kept)).toBeFalsy();
    expect(readFileSync(join(cp.work, 'plain', 'tree', 'sub', 'deep.txt'), 'utf8')).toBe('deep payload\n');
  });

  const zstd = serveCliForTests('zstd', kind, wire, {
    prepare: (root) => {
      mkdirSync(join(root, 'sub'));
      writeFileSync(join(root, 'sub', 'data.txt'), 'data\n');
      mkdirSync(join(root, 'flat'));
      mkdirSync(join(root, 'mirror', 'sub'), { recursive: true });
      // Dangling: zstd makes the file the link leads to.
      for (const link of ['flat/data.txt.zst', 'mirror/sub/data.txt.zst']) {
        symlinkSync(join(zstd.outside, 'made-by-zstd'), join(root, link));
      }
    },
  });

  it('zstd: an output directory holding a link at the name written there (flat or mirrored) is refused', async () => {
    const before = snapshot(zstd.outside);
    for (const [option, link] of [
      ['output-dir-flat', join('flat', 'data.txt.zst')],
      ['output-dir-mirror', join('mirror', 'sub', 'data.txt.zst')],
    ] as const) {
      const into = option === 'output-dir-flat' ? 'flat' : 'mirror';
      const result = await zstd.client().callTool('zstd', { [option]: into, args: ['sub/data.txt'] });
      const text = clientText(result);
      expect(result.isError, text).toBe(true);
      expect(text).toContain(
        `refused: args[0] "sub/data.txt" leads the program to ${join(zstd.work, link)} (a name the program may make of it by adding a suffix, as for a backup, journal, serial, archive or split piece), a symbolic link to ${join(zstd.outside, 'made-by-zstd')}`,
      );
    }
    expect(existsSync(join(zstd.outside, 'made-by-zstd'))).toBe(false);
    expect(snapshot(zstd.outside)).toEqual(before);
    // A directory without such a link is written into.
    mkdirSync(join(zstd.work, 'clean'));
    const kept = await zstd
      .client()
      .callTool('zstd', { 'output-dir-mirror': 'clean', args: ['sub/data.txt'] });
    expect(kept.isError, clientText(kept)).toBeFalsy();
    expect(existsSync(join(zstd.work, 'clean', 'sub', 'data.txt.zst'))).toBe(true);
  });

  const wget = serveCliForTests('wget', kind, wire, {
    prepare: (root) => {
      mkdirSync(join(root, 'crowded'));
      // More entries than are read: the names programs are known to add are looked up instead.
      for (let index = 0; index <= MAX_ENTRIES; index++)
        writeFileSync(join(root, 'crowded', `f${index}`), '');
      plant(root, wget.outside, ['crawl.warc.gz', 'crowded/crawl.warc.gz']);
    },
  });

  it('wget: a --warc-file whose .warc.gz is a link leading out is refused, in a crowded directory too', async () => {
    const before = snapshot(wget.outside);
    for (const [cwd, warc] of [
      [wget.work, 'crawl'],
      [wget.work, 'crowded/crawl'],
    ] as const) {
      const result = await wget.client().callTool('wget', { cwd, 'warc-file': warc, args: [`${site}/page`] });
      const text = clientText(result);
      expect(result.isError, text).toBe(true);
      expect(text).toContain(
        `refused: warc-file "${warc}" leads the program to ${join(wget.work, `${warc}.warc.gz`)} (a name the program may make of it by adding a suffix, as for a backup, journal, serial, archive or split piece), a symbolic link to ${join(wget.outside, 'victim.txt')}`,
      );
    }
    expect(readFileSync(join(wget.outside, 'victim.txt'), 'utf8')).toBe('still here\n');
    expect(snapshot(wget.outside)).toEqual(before);
    // A name without such a link is written.
    const kept = await wget.client().callTool('wget', { 'warc-file': 'kept', args: [`${site}/page`] });
    expect(kept.isError, clientText(kept)).toBeFalsy();
    expect(readFileSync(join(wget.work, 'kept.warc.gz')).length).toBeGreaterThan(0);
  });
  const split = serveCliForTests('split', kind, wire, {
    prepare: (root) => {
      writeFileSync(join(root, 'input.txt'), 'one\ntwo\n');
      plant(root, split.outside, ['partaa', 'longaaaaaaaa_x']);
      // Dangling: split makes the file it leads to.
      symlinkSync(join(split.outside, 'made-by-split'), join(root, 'num01'));
    },
  });

  it('split: a prefix whose pieces (partaa, num01) are links leading out is refused', async () => {
    const before = snapshot(split.outside);
    for (const [args, extra, link, real] of [
      [['input.txt', 'part'], {}, 'partaa', 'victim.txt'],
      [['input.txt', 'num'], { 'numeric-suffixes': '1' }, 'num01', 'made-by-split'],
    ] as const) {
      const result = await split.client().callTool('split', { lines: 1, ...extra, args: [...args] });
      const text = clientText(result);
      expect(result.isError, text).toBe(true);
      expect(text).toContain(
        `refused: args[1] "${args[1]}" leads the program to ${join(split.work, link)} (a name the program may make of it by adding a suffix, as for a backup, journal, serial, archive or split piece), a symbolic link to ${join(split.outside, real)}`,
      );
    }
    // Longer suffixes, and a suffix of its own after them.
    const long = await split.client().callTool('split', {
      lines: 1,
      'suffix-length': 8,
      'additional-suffix': '_x',
      args: ['input.txt', 'long'],
    });
    expect(long.isError, clientText(long)).toBe(true);
    expect(clientText(long)).toContain(`leads the program to ${join(split.work, 'longaaaaaaaa_x')}`);
    // A suffix holding "/" would be a path: refused whatever lies there.
    const slash = await split
      .client()
      .callTool('split', { lines: 1, 'additional-suffix': '/../../escaped', args: ['input.txt', 'dir'] });
    expect(slash.isError, clientText(slash)).toBe(true);
    expect(clientText(slash)).toContain(
      'additional-suffix is "/../../escaped": a suffix added to the names of files written may not hold "/"',
    );
    expect(readFileSync(join(split.outside, 'victim.txt'), 'utf8')).toBe('still here\n');
    expect(existsSync(join(split.outside, 'made-by-split'))).toBe(false);
    expect(snapshot(split.outside)).toEqual(before);
    // A prefix without such links is split into pieces.
    const kept = await split.client().callTool('split', { lines: 1, args: ['input.txt', 'piece'] });
    expect(kept.isError, clientText(kept)).toBeFalsy();
    expect(readFileSync(join(split.work, 'pieceab'), 'utf8')).toBe('two\n');
  });

  const openssl = serveCliForTests('openssl', kind, wire, {
    prepare: (root) => {
      const run = (...args: string[]) => execFileSync('openssl', args, { cwd: root, stdio: 'ignore' });
      for (const key of ['ca.key', 'leaf.key']) {
        run('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key);
      }
      run('req', '-x509', '-key', 'ca.key', '-out', 'ca.pem', '-subj', '/CN=ca', '-days', '2');
      run('req', '-new', '-key', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=leaf');
    },
  });

  it('openssl: a CA whose serial file (ca.srl for ca.pem) is a dangling link leading out is refused', async () => {
    // Dangling: -CAcreateserial makes the file it leads to.
    symlinkSync(join(openssl.outside, 'made-as-serial'), join(openssl.work, 'ca.srl'));
    const before = snapshot(openssl.outside);
    const sign = {
      req: true,
      in: 'leaf.csr',
      CA: 'ca.pem',
      CAkey: 'ca.key',
      CAcreateserial: true,
      out: 'leaf.pem',
    };
    const result = await openssl.client().callTool('openssl_x509', sign);
    const text = clientText(result);
    expect(result.isError, text).toBe(true);
    expect(text).toContain(
      `leads the program to ${join(openssl.work, 'ca.srl')} (a name the program may make of it by adding a suffix, as for a backup, journal, serial, archive or split piece), a symbolic link to ${join(openssl.outside, 'made-as-serial')}`,
    );
    expect(existsSync(join(openssl.outside, 'made-as-serial'))).toBe(false);
    expect(snapshot(openssl.outside)).toEqual(before);
    // Without the link the serial is made beside the CA.
    unlinkSync(join(openssl.work, 'ca.srl'));
    const kept = await openssl.client().callTool('openssl_x509', sign);
    expect(kept.isError, clientText(kept)).toBeFalsy();
    expect(readFileSync(join(openssl.work, 'ca.srl'), 'utf8')).toMatch(/^[0-9A-F]+\n$/);
  });
});
