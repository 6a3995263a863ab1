// Commands with a writing flag become a reader and writers (`buf format` and `buf_format_write`).
// The writer's flag sits in its fixed words, past the schema's option checks: the dangerous-option
// policy and the overlay's curation of the command must still reach it. Real buf and biome (npm).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type LoadedCli, loadCli, tempDir, textOf } from './helpers.js';

const BUF = fileURLToPath(new URL('../../node_modules/.bin/buf', import.meta.url));
const BIOME = fileURLToPath(new URL('../../node_modules/.bin/biome', import.meta.url));
const cache = tempDir('bridge-cli-cache-');
const previous = process.env.BRIDGE_CACHE_DIR;
process.env.BRIDGE_CACHE_DIR = cache.path;
afterAll(() => {
  process.env.BRIDGE_CACHE_DIR = previous;
  cache[Symbol.dispose]();
});

const UGLY = 'syntax   =   "proto3";\nmessage   M {   string a = 1; }\n';

function propertiesOf(cli: LoadedCli, name: string): string[] {
  return Object.keys(cli.registry.get(name)?.definition.inputSchema.properties ?? {});
}

async function loadBuf(dir: string, overlay: string | undefined, allowOptions?: string[]) {
  if (overlay !== undefined) writeFileSync(join(dir, 'buf.yaml.overlay.yaml'), overlay);
  return loadCli(
    {
      program: BUF,
      allow: ['format'],
      ...(overlay !== undefined ? { overlay: 'buf.yaml.overlay.yaml' } : {}),
      ...(allowOptions ? { allowOptions } : {}),
    },
    dir,
  );
}

describe('buf format --write and the dangerous-option policy', () => {
  it('offers no writer when the overlay calls --write dangerous, and one with --allow-option write', async () => {
    using work = tempDir();
    writeFileSync(join(work.path, 'm.proto'), UGLY);
    const overlay = 'program: buf\ndangerousOptions: [write]\n';
    {
      await using cli = await loadBuf(work.path, overlay);
      const names = cli.registry.tools.map((tool) => tool.name);
      expect(names).toContain('buf_format');
      expect(names).not.toContain('buf_format_write');
      expect(propertiesOf(cli, 'buf_format')).not.toContain('write');
      const result = await cli.call('buf_format', { args: ['m.proto'] });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(readFileSync(join(work.path, 'm.proto'), 'utf8')).toBe(UGLY);
    }
    {
      await using cli = await loadBuf(work.path, overlay, ['write']);
      const result = await cli.call('buf_format_write', { args: ['m.proto'] });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(readFileSync(join(work.path, 'm.proto'), 'utf8')).not.toBe(UGLY);
    }
  });
});

describe("the writer inherits its command's overlay curation", () => {
  it('drops the removed options, keeps the path marks and annotations, and takes its own entry', async () => {
    using work = tempDir();
    const overlay = [
      'program: buf',
      'commands:',
      '  format:',
      '    removeOptions: [diff, stdin-filepath]',
      '    annotations: { openWorldHint: true }',
      '    options:',
      '      config: { path: path }',
      '  format write:',
      '    description: Rewrites the Protobuf files in place.',
    ].join('\n');
    await using cli = await loadBuf(work.path, overlay);
    for (const name of ['buf_format', 'buf_format_write']) {
      expect(propertiesOf(cli, name), name).not.toContain('diff');
      expect(propertiesOf(cli, name), name).not.toContain('stdin-filepath');
      expect(cli.registry.get(name)?.definition.annotations?.openWorldHint, name).toBe(true);
    }
    const writer = cli.registry.get('buf_format_write')?.definition;
    expect(writer?.annotations).toMatchObject({ readOnlyHint: false });
    expect(writer?.description).toMatch(/^Rewrites the Protobuf files in place\./);
    // The path mark reached the writer: a value outside the roots is refused.
    const result = await cli.call('buf_format_write', { config: '/etc/passwd' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('refused: config');
  });

  it('offers no writer when the overlay removes the write option', async () => {
    using work = tempDir();
    const overlay = 'program: buf\ncommands:\n  format:\n    removeOptions: [write]\n';
    await using cli = await loadBuf(work.path, overlay);
    const names = cli.registry.tools.map((tool) => tool.name);
    expect(names).toContain('buf_format');
    expect(names).not.toContain('buf_format_write');
  });
});

describe('biome check, with both --write and --fix (an alias)', () => {
  it('offers a reader carrying neither flag and one writer', async () => {
    using work = tempDir();
    writeFileSync(join(work.path, 'biome.json'), '{}\n');
    writeFileSync(join(work.path, 'a.js'), 'let   x =  1\n');
    await using cli = await loadCli({ program: BIOME, allow: ['check'] }, work.path);
    const names = cli.registry.tools.map((tool) => tool.name);
    expect(names).toContain('biome_check_write');
    expect(names).not.toContain('biome_check_fix');
    const reader = cli.registry.get('biome_check')?.definition;
    expect(reader?.annotations?.readOnlyHint).toBe(true);
    expect(propertiesOf(cli, 'biome_check')).not.toContain('write');
    expect(propertiesOf(cli, 'biome_check')).not.toContain('fix');
    expect(propertiesOf(cli, 'biome_check_write')).not.toContain('fix');
    // The reader only reports; the writer rewrites.
    await cli.call('biome_check', { args: ['a.js'] });
    expect(readFileSync(join(work.path, 'a.js'), 'utf8')).toBe('let   x =  1\n');
    const written = await cli.call('biome_check_write', { args: ['a.js'] });
    expect(written.isError, textOf(written)).toBeFalsy();
    expect(readFileSync(join(work.path, 'a.js'), 'utf8')).toMatch(/^(let|const) x = 1;\n$/);
  });
});
