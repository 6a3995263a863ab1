// A live yargs program, served from its own --help: the peer's `openapi-mcp-server` (a pinned
// devDependency), whose help has yargs' type column ([string], [number], [boolean], [array]),
// choices, and descriptions wrapped onto a second line.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCli, tempDir } from './helpers.js';

const require = createRequire(import.meta.url);
const peer = join(
  dirname(require.resolve('@ivotoby/openapi-mcp-server/package.json')),
  (require('@ivotoby/openapi-mcp-server/package.json') as { bin: Record<string, string> }).bin[
    'openapi-mcp-server'
  ] as string,
);

const cache = tempDir('bridge-cli-cache-');
const previous = process.env.BRIDGE_CACHE_DIR;
process.env.BRIDGE_CACHE_DIR = cache.path;
afterAll(() => {
  if (previous === undefined) delete process.env.BRIDGE_CACHE_DIR;
  else process.env.BRIDGE_CACHE_DIR = previous;
  cache[Symbol.dispose]();
});

describe('a yargs program, discovered live', () => {
  it("types its options from yargs' help: choices, numbers, booleans, arrays, paths", async () => {
    using work = tempDir();
    await using cli = await loadCli({ program: peer, cache: false }, work.path);
    const tool = cli.registry.tools[0];
    expect(tool).toBeDefined();
    const schema = tool?.definition.inputSchema as { properties: Record<string, Record<string, unknown>> };
    const properties = schema.properties;
    expect(properties.transport).toMatchObject({ type: 'string', enum: ['stdio', 'http'] });
    expect(properties.tools).toMatchObject({ enum: ['all', 'dynamic', 'explicit'] });
    expect(properties.port).toMatchObject({ type: 'number' });
    expect(properties['spec-from-stdin']).toMatchObject({ type: 'boolean' });
    expect(properties.tag).toMatchObject({ type: 'array' });
    // "Path to client certificate PEM file…": a path, checked against the roots.
    expect(properties['client-cert']).toMatchObject({ 'x-path': 'path' });
    // A description wrapped onto a second line is read whole.
    expect(String(properties['client-cert']?.description)).toContain('mutual TL');
    expect(String(properties['client-cert']?.description)).not.toContain('[string]');
  });
});
