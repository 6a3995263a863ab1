import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashFile, readCache, writeCache } from '../../adapters/openapi/cache-tools.js';
import { sealJson, silentLogger } from '../../src/index.js';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { startUpstream } from './helpers/upstream.js';

// The conversion cache, through the real `bridge openapi` process and the v1 client over stdio:
// what a repeat start serves, and that a changed spec or a bad cache file never serves stale tools.
let dir: string;
let spec: string;
let cacheDir: string;

function writeSpec(summary: string): void {
  writeFileSync(
    spec,
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'cached', version: '1' },
      paths: {
        '/items/{id}': {
          get: {
            operationId: 'getItem',
            summary,
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
            responses: { '200': { description: 'ok' } },
          },
        },
        '/items': { post: { operationId: 'addItem', responses: { '201': { description: 'made' } } } },
      },
    }),
  );
}

const cacheFiles = () => readdirSync(join(cacheDir, 'openapi'));
const theCacheFile = () => join(cacheDir, 'openapi', cacheFiles()[0] as string);

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
}
const hasCache = () => {
  try {
    return cacheFiles().some((file) => file.endsWith('.json'));
  } catch {
    return false;
  }
};

async function start(...flags: string[]) {
  return connect('v1', 'stdio', {
    script: BRIDGE_BIN,
    args: [
      'openapi',
      spec,
      '--tools',
      'all',
      '--base-url',
      'http://127.0.0.1:9',
      '--log-level',
      'debug',
      ...flags,
    ],
    env: { BRIDGE_CACHE_DIR: cacheDir },
  });
}

async function descriptions(...flags: string[]): Promise<{ described: string[]; log: string }> {
  await using client = await start(...flags);
  const { tools } = await client.listTools();
  await until(hasCache);
  return { described: tools.map((tool) => String(tool.description)), log: client.stderr() };
}

// Rewrites the cache file in place, keeping it valid: what a start then serves came from the cache.
function markCache(marker: string): void {
  const cached = readCache(theCacheFile(), spec, silentLogger);
  if (!cached) throw new Error('no valid cache file to mark');
  for (const tool of cached.tools) if (tool.data) tool.data.description = marker;
  writeCache(theCacheFile(), cached, silentLogger);
}

// The file's first line: the head, with the format, version, files and where each tool is.
const headOf = (text: string) => JSON.parse(text.slice(0, text.indexOf('\n')));
const head = () => headOf(readFileSync(theCacheFile(), 'utf8'));
// Rewrites the head line, keeping the body, and seals it again as the bridge does (its checksum
// last): what a bug or a foreign writer could leave, rather than a damaged byte.
const editHead = (text: string, edit: (head: Record<string, unknown[] | undefined>) => void) => {
  const parsed = headOf(text);
  edit(parsed);
  delete parsed.sha256;
  return `${sealJson(JSON.stringify(parsed))}${text.slice(text.indexOf('\n'))}`;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-cache-'));
  spec = join(dir, 'spec.json');
  cacheDir = join(dir, 'cache');
  writeSpec('Get one item');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('openapi conversion cache', () => {
  it('serves a repeat start from the cache, its tools calling the API as before', async () => {
    const first = await descriptions();
    expect(first.described).toEqual(['POST /items', 'Get one item']);
    expect(hasCache()).toBe(true);
    // Stamped with this bridge's version, so an upgrade converts again.
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(head().bridge).toBe(pkg.version);
    markCache('FROM CACHE');
    await using upstream = await startUpstream();
    await using client = await connect('v1', 'stdio', {
      script: BRIDGE_BIN,
      args: ['openapi', spec, '--tools', 'all', '--base-url', upstream.url],
      env: { BRIDGE_CACHE_DIR: cacheDir },
    });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.description)).toEqual(['FROM CACHE', 'FROM CACHE']);
    expect(tools[1]?.inputSchema).toMatchObject({
      properties: { id: { type: 'integer' } },
      required: ['id'],
    });
    const result = await client.callTool('getItem', { id: 7 });
    expect(result.isError).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/items/7']);
  });

  it('is written a second after start-up, or as the bridge closes when the session is shorter', async () => {
    {
      await using client = await start();
      expect((await client.listTools()).tools).toHaveLength(2);
    }
    // The client's close waits for the process to exit, so the cache is there now, whether the
    // session outlived the delay or (as usual here) the source wrote it as it closed.
    expect(hasCache()).toBe(true);
    expect(head().tools).toHaveLength(2);
  });

  it('dynamic mode fills the cache in the background, and a later start serves from it', async () => {
    {
      await using client = await start('--tools', 'dynamic');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('search_operations');
      await until(hasCache);
    }
    expect(head().tools).toHaveLength(2);
    markCache('FROM CACHE');
    expect((await descriptions()).described).toEqual(['FROM CACHE', 'FROM CACHE']);
  });

  it('dynamic mode from the cache: searches, describes and calls what the cache holds', async () => {
    await descriptions();
    markCache('FROM CACHE');
    await using upstream = await startUpstream();
    await using client = await connect('v1', 'stdio', {
      script: BRIDGE_BIN,
      args: ['openapi', spec, '--tools', 'dynamic', '--base-url', upstream.url, '--log-level', 'debug'],
      env: { BRIDGE_CACHE_DIR: cacheDir },
    });
    const text = (result: { content: Array<Record<string, unknown>> }) => String(result.content[0]?.text);
    // The operation summaries (the search index), the list fields and the request plan are each
    // read from the cache file only when first needed.
    const found = await client.callTool('search_operations', { query: 'one item' });
    expect(text(found)).toContain('getItem: GET /items/{id} — Get one item (read-only)');
    const described = await client.callTool('describe_operation', { operation: 'getItem' });
    expect(text(described)).toContain('FROM CACHE');
    const called = await client.callTool('call_read_operation', {
      operation: 'getItem',
      arguments: { id: 3 },
    });
    expect(called.isError).toBeFalsy();
    expect(upstream.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/items/3']);
    expect(client.stderr()).not.toMatch(/conversion cache (unreadable|ignored)/);
  });

  it('--no-cache converts the spec again and leaves the cache alone', async () => {
    await descriptions();
    markCache('FROM CACHE');
    const before = readFileSync(theCacheFile(), 'utf8');
    expect((await descriptions('--no-cache')).described).toEqual(['POST /items', 'Get one item']);
    expect(readFileSync(theCacheFile(), 'utf8')).toBe(before);
  });

  it('never serves stale tools when the spec changed, and rewrites the cache', async () => {
    await descriptions();
    markCache('STALE');
    writeSpec('Get one item, edited');
    const again = await descriptions();
    expect(again.described).toEqual(['POST /items', 'Get one item, edited']);
    expect(again.log).toMatch(/spec changed since it was cached/);
    await until(() => readFileSync(theCacheFile(), 'utf8').includes('edited'));
    expect(readFileSync(theCacheFile(), 'utf8')).toContain('Get one item, edited');
    expect(cacheFiles()).toHaveLength(1);
  });

  it('never serves stale tools when a file the spec references changed', async () => {
    const item = (description: string) =>
      writeFileSync(join(dir, 'item.json'), JSON.stringify({ type: 'object', description }));
    item('first');
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'cached', version: '1' },
        paths: {
          '/items': {
            post: {
              operationId: 'addItem',
              requestBody: { content: { 'application/json': { schema: { $ref: './item.json' } } } },
              responses: { '201': { description: 'made' } },
            },
          },
        },
      }),
    );
    const body = async () => {
      await using client = await start();
      const { tools } = await client.listTools();
      await until(hasCache);
      return `${tools[0]?.description} ${JSON.stringify(tools[0]?.inputSchema)}`;
    };
    expect(await body()).toContain('first');
    const cached = head() as { files: string[][] };
    expect(cached.files.map(([file]) => file?.endsWith('item.json'))).toEqual([false, true]);
    markCache('FROM CACHE');
    expect(await body()).toMatch(/^FROM CACHE .*first/);
    item('second');
    const again = await body();
    expect(again).not.toContain('FROM CACHE');
    expect(again).toContain('second');
  });

  it('a spec touched without a change still hits; the same size and a new content misses', async () => {
    await descriptions();
    markCache('FROM CACHE');
    const later = new Date(Date.now() + 60_000);
    utimesSync(spec, later, later);
    expect((await descriptions()).described).toEqual(['FROM CACHE', 'FROM CACHE']);
    writeFileSync(spec, readFileSync(spec, 'utf8').replace('Get one item', 'Get one ITEM'));
    expect((await descriptions()).described).toEqual(['POST /items', 'Get one ITEM']);
  });

  it('an edit of the same size whose modification time is put back (touch -r) still misses', async () => {
    await descriptions();
    markCache('FROM CACHE');
    const reference = join(dir, 'reference');
    writeFileSync(reference, '');
    execFileSync('touch', ['-r', spec, reference]);
    const before = statSync(spec, { bigint: true });
    writeFileSync(spec, readFileSync(spec, 'utf8').replace('Get one item', 'Get one ITEm'));
    execFileSync('touch', ['-r', reference, spec]);
    const after = statSync(spec, { bigint: true });
    // Size, modification time and inode are all as they were when the cache was written.
    expect([after.size, after.mtimeNs, after.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
    expect((await descriptions()).described).toEqual(['POST /items', 'Get one ITEm']);
  });

  it.each([
    ['truncated', (text: string) => text.slice(0, text.length / 2), /conversion cache unreadable/],
    ['not JSON', () => '\u0000garbage', /conversion cache unreadable/],
    ['another format', (text: string) => text.replace(/"format":\d+/, '"format":999'), /format 999/],
    [
      'listing entries of another shape',
      (text: string) => text.replace(/"listed":\d+/, '"listed":999'),
      /listed entries of format 999/,
    ],
    [
      'another bridge version',
      (text: string) => text.replace(/"bridge":"[^"]*"/, '"bridge":"0.0.0-old"'),
      /written by bridge 0\.0\.0-old/,
    ],
    [
      'an entry without its tool',
      (text: string) => editHead(text, (head) => head.tools?.splice(0, 1, ['addItem', false])),
      /incomplete tool entry/,
    ],
    [
      'an entry pointing past the end',
      (text: string) =>
        editHead(text, (head) => (head.tools?.[1] as unknown[] | undefined)?.splice(4, 1, 1e9)),
      /incomplete tool entry/,
    ],
    [
      'damaged in a part read only later',
      (text: string) => text.replace(/"Get one item"/, '"Get one iTem"'),
      /conversion cache unreadable \(corrupt/,
    ],
    [
      'damaged in its head, still valid JSON (where requests go, where each tool is)',
      (text: string) => text.replace(/"title":"([^"]*)"/, '"title":"$1 (changed)"'),
      /conversion cache unreadable \(corrupt: its head/,
    ],
    [
      'without its head checksum',
      (text: string) => text.replace(/,"sha256":"[0-9a-f]{64}"\}\n/, '}\n'),
      /conversion cache unreadable \(corrupt: its head/,
    ],
  ])('ignores a cache file that is %s, with a debug log, and rebuilds it', async (_, damage, why) => {
    await descriptions();
    const file = theCacheFile();
    const damaged = damage(readFileSync(file, 'utf8'));
    writeFileSync(file, damaged);
    const again = await descriptions();
    expect(again.described).toEqual(['POST /items', 'Get one item']);
    expect(again.log).toMatch(why);
    await until(() => readFileSync(file, 'utf8') !== damaged);
    expect(head().tools).toHaveLength(2);
  });

  it('ignores a whole cache file that others could have written, and rewrites it for this user only', async () => {
    await descriptions();
    markCache('PLANTED');
    chmodSync(theCacheFile(), 0o666);
    const again = await descriptions();
    expect(again.described).toEqual(['POST /items', 'Get one item']);
    expect(again.log).toMatch(/conversion cache unreadable.*others can write it/);
    await until(() => (statSync(theCacheFile()).mode & 0o777) === 0o600);
    expect(statSync(theCacheFile()).mode & 0o777).toBe(0o600);
  });

  it('ignores a head whose file entries are malformed, rather than failing the start', () => {
    const file = join(dir, 'malformed.json');
    const conversion = { servers: {}, schemes: {}, title: 't', warnings: [], tools: [] };
    const { sha256, stat } = hashFile(spec) as { sha256: string; stat: string };
    const whole = [spec, sha256, stat];
    for (const files of [
      [whole, 5],
      [whole, null],
      [whole, [spec, 7]],
    ]) {
      writeCache(file, { ...conversion, files } as never, silentLogger);
      expect(readCache(file, spec, silentLogger)).toBeUndefined();
    }
  });

  it("ignores another spec's cache file put in place of this one's (its files unchanged)", async () => {
    await descriptions();
    const own = theCacheFile();
    const other = join(dir, 'other.json');
    writeFileSync(
      other,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'other', version: '1' },
        paths: { '/other': { get: { operationId: 'other', responses: { '200': { description: 'ok' } } } } },
      }),
    );
    {
      await using client = await connect('v1', 'stdio', {
        script: BRIDGE_BIN,
        args: ['openapi', other, '--tools', 'all', '--base-url', 'http://127.0.0.1:9'],
        env: { BRIDGE_CACHE_DIR: cacheDir },
      });
      await client.listTools();
      await until(() => cacheFiles().filter((file) => file.endsWith('.json')).length === 2);
    }
    const foreign = cacheFiles().find((file) => join(cacheDir, 'openapi', file) !== own) as string;
    writeFileSync(own, readFileSync(join(cacheDir, 'openapi', foreign)));
    const again = await descriptions();
    expect(again.described).toEqual(['POST /items', 'Get one item']);
    expect(again.log).toMatch(/built from another spec/);
  });

  it('two bridges starting at once on the same spec leave one whole cache file', async () => {
    const runs = await Promise.all([descriptions(), descriptions(), descriptions()]);
    for (const run of runs) expect(run.described).toEqual(['POST /items', 'Get one item']);
    await until(() => cacheFiles().every((file) => !file.endsWith('.tmp')));
    expect(cacheFiles()).toHaveLength(1);
    expect(head().tools).toHaveLength(2);
  });
});
