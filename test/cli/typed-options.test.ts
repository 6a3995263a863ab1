import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/index.js';
import { loadCli, tempDir, textOf } from './helpers.js';

// Real programs on the test machine, whose help shows the option classes end to end:
// jq (two-value options, an option named like the operands, a filter reading stdin) and
// kubectl (a boolean that defaults to true).

const cache = tempDir('bridge-cli-cache-');
const previous = process.env.BRIDGE_CACHE_DIR;
process.env.BRIDGE_CACHE_DIR = cache.path;
afterAll(() => {
  process.env.BRIDGE_CACHE_DIR = previous;
  cache[Symbol.dispose]();
});

describe('jq served from its --help', () => {
  it('passes a two-value option as two arguments, keeps --args and the operands apart, and reads stdin', async () => {
    using work = tempDir();
    // jq 1.6 reads a `--` before the filter as an error (fixed in 1.7): an overlay says it has no marker.
    writeFileSync(join(work.path, 'jq.yaml'), 'program: jq\nendOfOptions: null\n');
    await using cli = await loadCli({ program: 'jq', overlay: 'jq.yaml' }, work.path);
    const schema = cli.registry.get('jq')?.definition.inputSchema as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(schema.properties.arg).toMatchObject({ type: 'array', minItems: 2, maxItems: 2 });
    expect(schema.properties.args).toMatchObject({ type: 'boolean' });
    expect(schema.properties.operands).toMatchObject({ type: 'array' });
    expect(schema.properties.stdin).toMatchObject({ type: 'string' });
    const result = await cli.call('jq', {
      arg: ['greeting', 'hello'],
      c: true,
      operands: ['{a: .a, greeting: $greeting}'],
      stdin: '{"a": 1}',
    });
    expect(textOf(result), textOf(result)).not.toMatch(/error/i);
    expect(result.structuredContent?.stdout, textOf(result)).toBe('{"a":1,"greeting":"hello"}\n');
    // Each of the two values is one argument after the flag: a value that looks like an option stays a value.
    const literal = await cli.call('jq', {
      arg: ['x', '--from-file=/etc/passwd'],
      operands: ['$x'],
      stdin: '1',
    });
    expect(literal.structuredContent?.stdout).toBe('"--from-file=/etc/passwd"\n');
  });
});

describe('kubectl booleans that default to true', () => {
  it('turns one off with --flag=false', async () => {
    using work = tempDir();
    await using cli = await loadCli({ program: 'kubectl', allow: ['config view'] }, work.path);
    const tool = cli.registry.get('kubectl_config_view')?.definition;
    const schema = tool?.inputSchema as { properties: Record<string, { description?: string }> };
    expect(schema.properties.merge?.description).toContain('(false: --merge=false)');
    const context = { signal: new AbortController().signal } as unknown as ToolContext;
    expect(await tool?.preview?.({ merge: false, raw: true }, context)).toMatch(
      /config view --merge=false --raw /,
    );
  });
});

describe('curl, whose --help is abridged', () => {
  it('is served from its full help (--help all)', async () => {
    using work = tempDir();
    await using cli = await loadCli({ program: 'curl' }, work.path);
    const schema = cli.registry.get('curl')?.definition.inputSchema as {
      properties: Record<string, { type?: string }>;
    };
    expect(Object.keys(schema.properties).length).toBeGreaterThan(200);
    expect(schema.properties['max-time']?.type).toBe('number');
    expect(cli.registry.get('curl')?.definition.description).not.toMatch(/not the full help/);
  });
});
