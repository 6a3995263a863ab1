// A discovery cache file is trusted only when it is whole (sealed with its own checksum) and a spec
// of the program being started.
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCachedSpec, writeCachedSpec } from '../../adapters/cli/cache-discovery.js';
import { sealJson } from '../../src/index.js';
import { tempDir } from './helpers.js';

const dir = tempDir('bridge-cache-read-');
afterAll(() => dir[Symbol.dispose]());

const spec = {
  program: 'tool',
  binary: '/usr/bin/tool',
  version: '1',
  flavor: 'generic',
  endOfOptions: '--',
  commands: [{ path: ['run'], description: '', options: [], positionals: [] }],
  skipped: [],
};

// An object is written sealed, as the bridge writes it (a shape a writer with a bug could leave);
// a string as it is.
function read(content: unknown): unknown {
  const file = join(dir.path, 'spec.json');
  writeFileSync(file, typeof content === 'string' ? content : sealJson(JSON.stringify(content)));
  return readCachedSpec(file, '/usr/bin/tool');
}
const sealed = sealJson(JSON.stringify(spec));

describe('readCachedSpec', () => {
  it('reads a spec of the binary', () => {
    expect(read(spec)).toEqual(spec);
  });

  it.each([
    ['not JSON', '{'],
    ['JSON null', 'null'],
    ['another binary, which every call would run', { ...spec, binary: '/tmp/other' }],
    ['a command that is not one', { ...spec, commands: [null] }],
    ['a command without options', { ...spec, commands: [{ path: ['run'], positionals: [] }] }],
    ['no skipped list', { ...spec, skipped: undefined }],
    ['a byte damaged, still JSON (the subcommand a tool runs)', sealed.replace('"run"', '"rum"')],
    ['no checksum', JSON.stringify(spec)],
  ])('misses on %s', (_label, content) => {
    expect(read(content)).toBeUndefined();
  });

  it('is written for this user only, and misses on a file others could have written', () => {
    const file = join(dir.path, 'cli', 'own.json');
    writeCachedSpec(file, spec as never);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readCachedSpec(file, '/usr/bin/tool')).toEqual(spec);
    // In a shared cache directory another user could have planted the commands the tools run.
    chmodSync(file, 0o666);
    expect(readCachedSpec(file, '/usr/bin/tool')).toBeUndefined();
  });
});
