import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

// A repeat start lists the tools from the conversion cache's JSON as it is (see list-json.ts):
// GitHub's 1,223 tools, through the real process on stdio, must come out exactly as a start that
// converts the spec lists them. Read line by line with a bare JSON-lines client, so that which path
// answered shows: the kept text puts `title` second, the SDK's path lists `listEntry`'s order.

const GITHUB_SPEC = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');

let dir: string;
let cacheDir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-cached-list-'));
  cacheDir = join(dir, 'cache');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Message = { id?: number; result?: Record<string, unknown>; error?: { code: number; message: string } };

/** A bridge on stdio driven by JSON lines: `ask` sends a request and resolves with its answer line. */
function bridge(args: string[], version = '2025-11-25') {
  const child = spawn(process.execPath, [BRIDGE_BIN, ...args], {
    env: { ...process.env, BRIDGE_CACHE_DIR: cacheDir },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const waiting = new Map<number, (line: string) => void>();
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      const { id } = JSON.parse(line) as Message;
      if (typeof id === 'number') waiting.get(id)?.(line);
    }
  });
  let next = 1;
  const ask = (method: string, params?: Record<string, unknown>): Promise<string> => {
    const id = next++;
    const answered = new Promise<string>((resolve) => waiting.set(id, resolve));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
    return answered;
  };
  const initialized = ask('initialize', {
    protocolVersion: version,
    capabilities: {},
    clientInfo: { name: 'lines', version: '1' },
  }).then(() => child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'));
  return {
    ask: async (method: string, params?: Record<string, unknown>) => {
      await initialized;
      return ask(method, params);
    },
    /** Every page of tools/list: the answer lines and the tools. */
    async list(): Promise<{ lines: string[]; tools: Array<Record<string, unknown>> }> {
      await initialized;
      const lines: string[] = [];
      const tools: Array<Record<string, unknown>> = [];
      let cursor: string | undefined;
      do {
        const line = await ask('tools/list', cursor === undefined ? undefined : { cursor });
        lines.push(line);
        const { result } = JSON.parse(line) as { result: { tools: typeof tools; nextCursor?: string } };
        tools.push(...result.tools);
        cursor = result.nextCursor;
      } while (cursor !== undefined);
      return { lines, tools };
    },
    async close(): Promise<void> {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

const github = (...flags: string[]) => [
  'openapi',
  GITHUB_SPEC,
  '--tools',
  'all',
  '--base-url',
  'http://127.0.0.1:9',
  ...flags,
];

/** Starts once so the cache is written (as the bridge closes), and checks it is there. */
async function fillCache(args: string[]): Promise<void> {
  const first = bridge(args);
  await first.ask('ping');
  await first.close();
  expect(readdirSync(join(cacheDir, 'openapi')).some((file) => file.endsWith('.json'))).toBe(true);
}

describe('tools/list from the conversion cache', () => {
  it("lists GitHub's tools from the cache's text exactly as a converting start lists them", async () => {
    const converting = bridge(github('--no-cache'));
    const fresh = await converting.list();
    await converting.close();
    await fillCache(github());

    const cached = bridge(github());
    const repeat = await cached.list();
    await cached.close();

    expect(repeat.tools).toHaveLength(1223);
    expect(repeat.tools).toEqual(fresh.tools);
    // Same members, same serialization: the same bytes per page, in another member order.
    expect(repeat.lines.map((line) => line.length)).toEqual(fresh.lines.map((line) => line.length));
    expect(Object.keys(fresh.tools[0] as object).slice(0, 3)).toEqual(['name', 'description', 'inputSchema']);
    expect(Object.keys(repeat.tools[0] as object).slice(0, 3)).toEqual(['name', 'title', 'description']);
    const page = JSON.parse(repeat.lines[0] as string) as Record<string, unknown>;
    expect(Object.keys(page)).toEqual(['result', 'jsonrpc', 'id']);
  }, 60_000);

  it('gives an old client the title in the annotations, and answers a bad cursor with -32602', async () => {
    await fillCache(github());
    const converting = bridge(github('--no-cache'), '2025-03-26');
    const fresh = await converting.list();
    await converting.close();
    const cached = bridge(github(), '2025-03-26');
    const repeat = await cached.list();
    const bad = JSON.parse(await cached.ask('tools/list', { cursor: 'not a cursor' })) as Message;
    const after = JSON.parse(await cached.ask('tools/list')) as Message;
    await cached.close();

    expect(repeat.tools).toEqual(fresh.tools);
    expect(repeat.tools[0]).not.toHaveProperty('title');
    expect(repeat.tools[0]).toHaveProperty('annotations.title', expect.any(String));
    expect(bad.error?.code).toBe(-32602);
    expect(after.result).toHaveProperty('tools.length', 500);
  }, 60_000);

  it('lists what a config changes (overrides) from its members, a namespaced tool from the cached text, and honours --relax-output', async () => {
    const spec = join(dir, 'items.json');
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'items', version: '1' },
        paths: {
          '/items/{id}': {
            get: {
              operationId: 'getItem',
              summary: 'Get an item',
              parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
              responses: {
                '200': {
                  description: 'ok',
                  content: {
                    'application/json': {
                      schema: { type: 'object', properties: { id: { type: 'integer' } } },
                    },
                  },
                },
              },
            },
          },
          '/items': {
            post: {
              operationId: 'addItem',
              'x-mcp': { title: '' },
              responses: { '201': { description: 'made' } },
            },
            get: {
              operationId: 'listItems',
              summary: 'List items',
              responses: { '200': { description: 'ok' } },
            },
          },
        },
      }),
    );
    const config = join(dir, 'bridge.config.yaml');
    writeFileSync(
      config,
      [
        'sources:',
        '  - kind: openapi',
        '    namespace: shop',
        '    options:',
        `      spec: ${JSON.stringify(spec)}`,
        '      baseUrl: http://127.0.0.1:9',
        '      tools: all',
        '    tools:',
        '      getItem:',
        '        description: Overridden by the config.',
      ].join('\n'),
    );
    await fillCache(['serve', config]);
    const cached = bridge(['serve', config]);
    const { tools } = await cached.list();
    await cached.close();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual(['shop_addItem', 'shop_getItem', 'shop_listItems']);
    expect(byName.shop_getItem?.description).toBe('Overridden by the config.');
    // Renamed only: still listed from the cache's text (title second); overridden: from its members.
    expect(Object.keys(byName.shop_listItems as object).slice(0, 3)).toEqual([
      'name',
      'title',
      'description',
    ]);
    expect(byName.shop_listItems?.title).toBe('List items');
    expect(Object.keys(byName.shop_getItem as object).slice(0, 2)).toEqual(['name', 'description']);
    expect(byName.shop_getItem?.outputSchema).toEqual({
      type: 'object',
      properties: { id: { type: 'integer' } },
    });
    // An empty title is not listed, from the cache as from the conversion.
    expect(byName.shop_addItem).not.toHaveProperty('title');
    expect(Object.keys(byName.shop_addItem as object)[1]).toBe('description');

    const shorthand = ['openapi', spec, '--tools', 'all', '--base-url', 'http://127.0.0.1:9'];
    await fillCache(shorthand);
    const relaxed = bridge([...shorthand, '--relax-output']);
    const relaxedList = await relaxed.list();
    await relaxed.close();
    const plain = bridge(shorthand);
    const plainList = await plain.list();
    await plain.close();
    const get = (list: typeof tools) => list.find((tool) => tool.name === 'getItem');
    expect(get(relaxedList.tools)).not.toHaveProperty('outputSchema');
    expect(get(plainList.tools)?.outputSchema).toEqual({
      type: 'object',
      properties: { id: { type: 'integer' } },
    });
    expect(Object.keys(get(plainList.tools) as object)[1]).toBe('title');
    expect(plainList.tools.find((tool) => tool.name === 'addItem')).not.toHaveProperty('title');
  }, 60_000);
});
