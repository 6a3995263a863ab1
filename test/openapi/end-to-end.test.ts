import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, MATRIX } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { FIXTURES } from './helpers/in-process.js';
import { PNG, startUpstream, type Upstream } from './helpers/upstream.js';

// `bridge openapi` as a real process, driven by both SDK clients over stdio and HTTP.
let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(async () => {
  await upstream?.close();
});

const spec = join(FIXTURES, 'api-3.0.yaml');
const command = (...flags: string[]) => ({
  script: BRIDGE_BIN,
  args: ['openapi', spec, '--base-url', upstream.url, ...flags],
  env: { BRIDGE_KEYHEADER_API_KEY: 'e2e-key' },
});

describe.each(MATRIX)('bridge openapi with the $kind client over $wire', ({ kind, wire }) => {
  it('lists annotated tools and calls them: JSON with structured content, images, errors', async () => {
    await using client = await connect(kind, wire, command('--tools', 'all'));
    const { tools } = await client.listTools();
    const getItem = tools.find((t) => t.name === 'getItem');
    expect(getItem?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(getItem?.outputSchema).toMatchObject({ type: 'object' });
    for (const tool of tools) expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);

    const item = await client.callTool('getItem', { itemId: 'a/x', tags: ['a', 'b'] });
    expect(item.isError).toBeFalsy();
    expect(item.structuredContent).toMatchObject({ method: 'GET', url: '/v1/items/a%2Fx?tags=a&tags=b' });

    const auth = await client.callTool('authKeyHeader', {});
    expect((auth.structuredContent as { headers: Record<string, string> }).headers['x-api-key']).toBe(
      'e2e-key',
    );
    // The MCP client's own credentials are never forwarded by default.
    expect(
      (auth.structuredContent as { headers: Record<string, string> }).headers.authorization,
    ).toBeUndefined();

    const image = await client.callTool('getBinary', { kind: 'png' });
    expect(image.content[0]).toEqual({ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' });

    const missing = await client.callTool('getStatus', { code: 404 });
    expect(missing.isError).toBe(true);
    expect(String(missing.content[0]?.text)).toContain('HTTP 404 Not Found');

    const invalid = await client.callTool('createItem', { body: { price: 'free' } });
    expect(invalid.isError).toBe(true);
    expect(String(invalid.content[0]?.text)).toContain('/body/price');
  });

  it('serves dynamic meta-tools that search, describe and call operations', async () => {
    await using client = await connect(kind, wire, command('--tools', 'dynamic', '--exclude', 'tag:files'));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'call_operation',
      'call_read_operation',
      'describe_operation',
      'search_operations',
    ]);
    const found = await client.callTool('search_operations', { query: 'get item' });
    expect(String(found.content[0]?.text).split('\n')[0]).toMatch(/^getItem: GET \/items\/\{itemId\}/);
    const excluded = await client.callTool('describe_operation', { operation: 'uploadBytes' });
    expect(excluded.isError).toBe(true);
    const described = await client.callTool('describe_operation', { operation: 'getItem' });
    expect(JSON.parse(String(described.content[0]?.text)).inputSchema.required).toEqual(['itemId']);
    const called = await client.callTool('call_read_operation', {
      operation: 'getItem',
      arguments: { itemId: '7' },
    });
    expect(JSON.parse(String(called.content[0]?.text)).url).toBe('/v1/items/7');
    const refused = await client.callTool('call_read_operation', {
      operation: 'deleteItem',
      arguments: { itemId: '7' },
    });
    expect(refused.isError).toBe(true);
    const bad = await client.callTool('call_operation', { operation: 'getItem', arguments: {} });
    expect(String(bad.content[0]?.text)).toContain('/itemId: is required');
  });
});

describe.each(['v1', 'v2'] as const)("GitHub's REST spec with the %s client", (kind) => {
  it('lists 1,000+ tools that the SDK client accepts, each valid and annotated', {
    timeout: 60_000,
  }, async () => {
    const github = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
    await using client = await connect(kind, 'stdio', {
      script: BRIDGE_BIN,
      args: ['openapi', github, '--tools', 'all', '--base-url', upstream.url],
    });
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(1_000);
    const names = new Set(tools.map((t) => t.name));
    expect(names.size).toBe(tools.length);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
      // The four hints, and the title once, at the top level: never copied into the annotations.
      expect(Object.keys(tool.annotations as object).sort()).toEqual([
        'destructiveHint',
        'idempotentHint',
        'openWorldHint',
        'readOnlyHint',
      ]);
      expect(tool.title).toBeTruthy();
      // No media type notes (the caller cannot choose the Accept header), none of the token-scope
      // notes repeated across hundreds of operations, and ASCII where the spec had typographic marks.
      expect(tool.description).not.toMatch(/following custom media types|^- \*\*`application\/vnd/m);
      expect(tool.description).not.toMatch(
        /(^|\n)OAuth app tokens and personal access tokens \(classic\) need the `repo` scope to use this endpoint\.($|\n)/,
      );
      expect(tool.description).not.toMatch(/[\u2018\u2019\u201c\u201d\u2026]/);
    }
    // The echo upstream is not GitHub, but its answer fits the outline of a repository (a `url`
    // string, no field GitHub's spec types otherwise): structured content the client accepts.
    const result = await client.callTool('repos_get', { owner: 'o', repo: 'r' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ url: '/v1/repos/o/r' });
  });
});

describe('bad input on the command line', () => {
  it.each([
    ['a missing spec', ['openapi', join(FIXTURES, 'missing.yaml')], /missing\.yaml: no such file/],
    [
      'invalid YAML',
      ['openapi', join(FIXTURES, 'invalid.yaml')],
      /invalid\.yaml is neither valid JSON nor valid YAML/,
    ],
    [
      'OpenAPI 4',
      ['openapi', join(FIXTURES, 'unknown-version.json')],
      /OpenAPI version 4\.0\.0 is not supported/,
    ],
    ['--tools some', ['openapi', spec, '--tools', 'some'], /--tools must be one of all, dynamic, auto/],
    ['--include color:red', ['openapi', spec, '--include', 'color:red'], /unknown kind "color"/],
  ])('%s: exits non-zero with one paragraph naming the problem', (_label, args, message) => {
    const run = spawnSync(process.execPath, [BRIDGE_BIN, ...args], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });
});
