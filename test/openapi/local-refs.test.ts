import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDocument } from '../../adapters/openapi/load-document.js';
import { localRefResolver } from '../../adapters/openapi/read-local-ref.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

// References from a local spec to local files: read when they are regular files, within the byte
// bound every referenced document of one spec shares; a device or a FIFO would be read without end
// (`/dev/zero` grew the process past 10 GB) or wait for a writer forever.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-local-refs-'));
  writeFileSync(join(dir, 'item.json'), JSON.stringify({ type: 'object', description: 'ITEM FILE' }));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const writeSpec = (ref: string) =>
  writeFileSync(
    join(dir, 'spec.json'),
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'local', version: '1' },
      paths: {
        '/a': {
          get: {
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } },
            },
          },
        },
      },
    }),
  );
const load = (ref: string) => {
  writeSpec(ref);
  return loadDocument('spec.json', dir);
};

describe('local references', () => {
  it.each([
    ['a relative path', () => './item.json'],
    ['a file: URL', () => pathToFileURL(join(dir, 'item.json')).href],
  ])('reads %s, and watches the file by its path', async (_, ref) => {
    const loaded = await load(ref());
    expect(JSON.stringify(loaded.document)).toContain('ITEM FILE');
    expect(loaded.files).toEqual([join(dir, 'spec.json'), join(dir, 'item.json')]);
  });

  it('refuses a device, without reading it', async () => {
    const started = performance.now();
    const loading = load('file:///dev/zero');
    await expect(loading).rejects.toThrow(
      `file:///dev/zero (from ${join(dir, 'spec.json')}): it is not a regular file`,
    );
    // A local file's failure, not a hint about URLs.
    await expect(loading).rejects.not.toThrow('--allow-remote-refs');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('refuses a FIFO, without waiting for a writer', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe.json')]);
    await expect(load('./pipe.json')).rejects.toThrow('it is not a regular file (a device, a FIFO');
  });

  it('says so from the command line, and exits', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe.json')]);
    writeSpec('./pipe.json');
    const run = spawnSync(process.execPath, [BRIDGE_BIN, 'openapi', join(dir, 'spec.json')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000,
      encoding: 'utf8',
    });
    expect(run.signal).toBeNull();
    expect(run.status).not.toBe(0);
    // The reason as the resolver gave it, not the parser's "Error reading file".
    expect(run.stderr).toContain('./pipe.json (from');
    expect(run.stderr).toContain('it is not a regular file');
  });

  it('refuses a directory', async () => {
    mkdirSync(join(dir, 'schemas.json'));
    await expect(load('./schemas.json')).rejects.toThrow('it is not a regular file');
  });

  it('counts what it reads against the bound of the whole spec', async () => {
    writeFileSync(join(dir, 'large.json'), JSON.stringify({ pad: 'x'.repeat(2_000) }));
    const budget = { bytesLeft: 5_000 };
    const { resolver, files } = localRefResolver(budget);
    const read = () => resolver.read({ url: join(dir, 'large.json'), baseUrl: dir }, undefined, {} as never);
    await read();
    await read();
    await expect(read()).rejects.toThrow('larger than the bridge reads for one spec');
    expect(files).toEqual([join(dir, 'large.json')]);
  });
});
