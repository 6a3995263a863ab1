// The V8 code cache of the bundled command line (src/code-cache.ts, bin/run-bundle.ts): the file
// format's bad inputs, concurrent writers as real processes, and the built executable serving a
// real v1 client over stdio with no cache, a valid one, a corrupt one and one V8 rejects.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CodeCacheKey,
  codeCacheFile,
  readCodeCache,
  STALE_AFTER_MS,
  writeCodeCache,
} from '../../src/code-cache.js';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN, distPath } from '../helpers/start-bridge.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-code-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const key: CodeCacheKey = {
  bundle: 'a'.repeat(64),
  file: '3205503:1763952000000000000',
  node: 'v20 x64 linux',
  flags: '[[],""]',
  command: 'openapi',
};
const stampOf = (file: string) => {
  const stat = statSync(file, { bigint: true });
  return `${stat.size}:${stat.mtimeNs}`;
};
const payload = Buffer.from('V8 cached data stands in here'.repeat(100));

describe('code cache file', () => {
  it('reads back what was written, for the same key only', () => {
    const file = codeCacheFile(dir, key);
    expect(file.startsWith(join(dir, 'code', 'openapi-'))).toBe(true);
    expect(writeCodeCache(file, key, payload)).toBe(true);
    expect(readCodeCache(file, key)).toEqual(payload);
    for (const other of [
      { bundle: 'b'.repeat(64) },
      { node: 'v22 x64 linux' },
      { flags: '[["--jitless"],""]' },
    ]) {
      const foreign = { ...key, ...other };
      // Another key names another file, and a file copied over from another key is refused too.
      expect(codeCacheFile(dir, foreign)).not.toBe(file);
      expect(readCodeCache(file, foreign)).toBeUndefined();
    }
    expect(readdirSync(join(dir, 'code'))).toEqual([file.split('/').pop()]);
  });

  it('ignores missing, truncated, corrupt and foreign files', () => {
    const file = codeCacheFile(dir, key);
    expect(readCodeCache(file, key)).toBeUndefined();
    writeCodeCache(file, key, payload);
    const whole = readFileSync(file);
    const variants: Record<string, Buffer> = {
      empty: Buffer.alloc(0),
      'header only': whole.subarray(0, whole.length - payload.length),
      truncated: whole.subarray(0, whole.length - 10),
      'one payload byte flipped': Buffer.from(whole).fill(0x21, whole.length - 5, whole.length - 4),
      'one key byte flipped': Buffer.from(whole).fill(0, 25, 26),
      'another program': Buffer.from('{"format":3,"tools":[]}\n'),
    };
    for (const [what, bytes] of Object.entries(variants)) {
      writeFileSync(file, bytes);
      expect(readCodeCache(file, key), what).toBeUndefined();
    }
    // A directory where the file should be: unreadable, ignored.
    rmSync(file);
    mkdirSync(file);
    expect(readCodeCache(file, key)).toBeUndefined();
  });

  it('is written for this user only, and a whole file others could have written is not used', () => {
    const file = codeCacheFile(dir, key);
    writeCodeCache(file, key, payload);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'code')).mode & 0o077).toBe(0);
    for (const mode of [0o666, 0o620, 0o602]) {
      chmodSync(file, mode);
      expect(readCodeCache(file, key), mode.toString(8)).toBeUndefined();
    }
    chmodSync(file, 0o644);
    expect(readCodeCache(file, key)).toEqual(payload);
  });

  it('a symlink or a FIFO in place of the file is not used, and a FIFO does not hang the read', () => {
    const file = codeCacheFile(dir, key);
    writeCodeCache(file, key, payload);
    // A whole, valid file of this user elsewhere (one it downloaded, say), linked in by whoever
    // can write the cache directory: its bytecode would run as ours.
    const elsewhere = join(dir, 'elsewhere.bin');
    renameSync(file, elsewhere);
    symlinkSync(elsewhere, file);
    expect(readCodeCache(elsewhere, key)).toEqual(payload);
    expect(readCodeCache(file, key)).toBeUndefined();
    rmSync(file);
    // Opening a FIFO for reading waits for a writer: it must be refused, not block the start.
    execFileSync('mkfifo', [file]);
    expect(readCodeCache(file, key)).toBeUndefined();
  });

  it('writing one removes the files of the directory not written for a week, and nothing else', () => {
    const codeDir = join(dir, 'code');
    mkdirSync(codeDir);
    const old = new Date(Date.now() - STALE_AFTER_MS - 60_000);
    const stale = join(codeDir, `cli-${'1'.repeat(20)}.bin`);
    const staleTemp = `${stale}.123.abc.tmp`;
    const recent = join(codeDir, `graphql-${'2'.repeat(20)}.bin`);
    const foreign = join(codeDir, 'notes.txt');
    for (const path of [stale, staleTemp, recent, foreign]) writeFileSync(path, 'x');
    for (const path of [stale, staleTemp, foreign]) utimesSync(path, old, old);
    writeCodeCache(codeCacheFile(dir, key), key, payload);
    expect(readdirSync(codeDir).sort()).toEqual(
      [codeCacheFile(dir, key).split('/').pop(), 'graphql-22222222222222222222.bin', 'notes.txt'].sort(),
    );
  });

  it('a cache directory that cannot be written is not an error', () => {
    writeFileSync(join(dir, 'code'), 'a file where the directory should be');
    expect(writeCodeCache(codeCacheFile(dir, key), key, payload)).toBe(false);
  });

  it('concurrent writers leave one whole file and no temp files', async () => {
    const file = codeCacheFile(dir, key);
    const module = distPath('src/code-cache.js');
    // Eight processes write different payloads of 2 MB to the same file at the same time.
    const script = `import(${JSON.stringify(module)}).then((m) => {
      const data = Buffer.alloc(2 << 20, Number(process.argv[1]));
      for (let i = 0; i < 5; i++) m.writeCodeCache(process.argv[2], JSON.parse(process.argv[3]), data);
    })`;
    const writers = Array.from({ length: 8 }, (_, i) =>
      spawn(process.execPath, ['-e', script, String(i + 1), file, JSON.stringify(key)], { stdio: 'inherit' }),
    );
    await Promise.all(writers.map((child) => once(child, 'exit')));
    expect(writers.map((child) => child.exitCode)).toEqual(Array(8).fill(0));
    const read = readCodeCache(file, key);
    expect(read?.length).toBe(2 << 20);
    expect(new Set(read)).toHaveLength(1);
    expect(readdirSync(join(dir, 'code'))).toHaveLength(1);
  });
});

describe('the built executable', () => {
  it('runs by itself, as `npx mcp-bridge` runs it in a checkout', () => {
    const run = spawnSync(BRIDGE_BIN, ['--version'], { encoding: 'utf8' });
    expect(run.error).toBeUndefined();
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('the built bridge and its code cache', () => {
  let spec: string;
  let cacheDir: string;
  // What the executable computes for itself: the build's hash of the bundle, this Node, no flags.
  const keyOfBuild = (): CodeCacheKey => ({
    bundle: createHash('sha256')
      .update(readFileSync(distPath('bin/bridge-bundle.js')))
      .digest('hex'),
    file: stampOf(distPath('bin/bridge-bundle.js')),
    node: `${process.version} ${process.arch} ${process.platform}`,
    flags: JSON.stringify([[], process.env.NODE_OPTIONS ?? '']),
    command: 'openapi',
  });

  beforeEach(() => {
    spec = join(dir, 'spec.json');
    cacheDir = join(dir, 'cache');
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'items', version: '1' },
        paths: {
          '/items': { get: { operationId: 'listItems', responses: { '200': { description: 'ok' } } } },
        },
      }),
    );
  });

  // Starts the built bridge, lists its tools with the v1 client over stdio, closes it (and waits
  // for the process to exit).
  async function serveOnce(env: Record<string, string> = {}): Promise<string[]> {
    await using client = await connect('v1', 'stdio', {
      script: BRIDGE_BIN,
      args: ['openapi', spec, '--tools', 'all', '--base-url', 'http://127.0.0.1:9'],
      env: { BRIDGE_CACHE_DIR: cacheDir, ...env },
    });
    return (await client.listTools()).tools.map((tool) => tool.name);
  }

  // The cache is written as the process exits, and the client's close waits for the exit.
  const stored = () => readCodeCache(codeCacheFile(cacheDir, keyOfBuild()), keyOfBuild());

  it('is written after a successful start and used, not rewritten, by the next', async () => {
    const file = codeCacheFile(cacheDir, keyOfBuild());
    expect(await serveOnce()).toEqual(['listItems']);
    expect(stored()?.length).toBeGreaterThan(100_000);
    const before = statSync(file, { bigint: true });
    expect(await serveOnce()).toEqual(['listItems']);
    const after = statSync(file, { bigint: true });
    // Same inode and mtime: V8 accepted the data, so there was nothing to write.
    expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs]);
  });

  it('a corrupt file, or data V8 rejects, is ignored and replaced; the bridge serves either way', async () => {
    const file = codeCacheFile(cacheDir, keyOfBuild());
    await serveOnce();
    expect(stored()).toBeDefined();

    // A flipped byte: refused by the checksum before V8 sees it.
    const corrupt = readFileSync(file);
    corrupt[corrupt.length - 100] = (corrupt[corrupt.length - 100] ?? 0) ^ 0xff;
    writeFileSync(file, corrupt);
    expect(await serveOnce()).toEqual(['listItems']);
    expect(stored()).toBeDefined();

    // Whole and for this key, but not V8's data (as from another V8 build): V8 rejects it.
    const garbage = Buffer.alloc(50_000, 7);
    writeCodeCache(file, keyOfBuild(), garbage);
    expect(await serveOnce()).toEqual(['listItems']);
    expect(stored()?.length).toBeGreaterThan(100_000);
  });

  it('a bundle edited after the build, even to the same length, never runs the old bytecode', () => {
    // A copy of the built loader and bundle inside dist/, so that its packages still resolve.
    const copy = mkdtempSync(join(distPath(''), 'code-cache-test-'));
    try {
      mkdirSync(join(copy, 'bin'));
      for (const name of ['bridge.js', 'bridge-bundle.js', 'package.json']) {
        writeFileSync(join(copy, 'bin', name), readFileSync(distPath(`bin/${name}`)));
      }
      // The help goes to stderr.
      const help = () =>
        spawnSync(process.execPath, [join(copy, 'bin', 'bridge.js'), '--help'], {
          env: { ...process.env, BRIDGE_CACHE_DIR: cacheDir },
          encoding: 'utf8',
        }).stderr;
      expect(help()).toContain('serve one source');
      expect(readdirSync(join(cacheDir, 'code'))).toHaveLength(1);
      // The same length, so V8's own check of the source (its length) would accept the old data.
      const bundle = join(copy, 'bin', 'bridge-bundle.js');
      const edited = readFileSync(bundle, 'latin1').replace('serve one source', 'SERVE ONE SOURCE');
      writeFileSync(bundle, edited, 'latin1');
      expect(help()).toContain('SERVE ONE SOURCE');
      expect(readdirSync(join(cacheDir, 'code'))).toHaveLength(2);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('BRIDGE_CODE_CACHE=off reads and writes nothing', async () => {
    expect(await serveOnce({ BRIDGE_CODE_CACHE: 'off' })).toEqual(['listItems']);
    expect(existsSync(join(cacheDir, 'code'))).toBe(false);
  });
});
