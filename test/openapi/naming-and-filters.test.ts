import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FIXTURES, firstText, type LoadedTools, loadTools } from './helpers/in-process.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bridge-openapi-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function names(options: Parameters<typeof loadTools>[0]): Promise<Map<string, string>> {
  const tools: LoadedTools = await loadTools({ baseUrl: 'http://127.0.0.1:9', tools: 'all', ...options });
  await tools.close();
  return new Map(tools.registry.tools.map((t) => [t.name, t.definition.description]));
}

describe('tool names', () => {
  it('stay the same when the spec lists paths and methods in another order', async () => {
    const spec = parse(await readFile(join(FIXTURES, 'api-3.0.yaml'), 'utf8')) as {
      paths: Record<string, object>;
    };
    const reversed = Object.fromEntries(
      Object.entries(spec.paths)
        .reverse()
        .map(([path, item]) => [path, Object.fromEntries(Object.entries(item).reverse())]),
    );
    const file = join(dir, 'reordered.json');
    await writeFile(file, JSON.stringify({ ...spec, paths: reversed }));
    const original = await names({ spec: 'api-3.0.yaml' });
    const reordered = await names({ spec: file });
    expect([...reordered.entries()].sort()).toEqual([...original.entries()].sort());
    // The duplicate operationId keeps its plain name on the first path in path order.
    expect(reordered.get('duplicated')).toBe('GET /duplicate/one');
    expect(reordered.get('duplicated_2')).toBe('GET /duplicate/two');
  });
});

describe('--include and --exclude', () => {
  it.each([
    [{ include: ['tag:files'] }, ['getBinary', 'postMultipart', 'uploadBytes']],
    [
      { include: ['tag:items'], exclude: ['method:GET', 'method:delete'] },
      ['createItem', 'patchItem', 'replaceItem'],
    ],
    [{ include: ['/auth/key-*'] }, ['authKeyCookie', 'authKeyHeader', 'authKeyQuery']],
    [{ include: ['path:/items/**'] }, ['deleteItem', 'getItem', 'patchItem', 'replaceItem']],
    [
      { include: ['auth*'], exclude: ['authKey*', 'operation:authOauth'] },
      ['authBasic', 'authBearer', 'authEither'],
    ],
  ])('%j serves exactly the matching operations', async (filters, expected) => {
    const served = await names({ spec: 'api-3.0.yaml', ...filters });
    expect([...served.keys()].sort()).toEqual(expected);
  });

  it('fails when nothing is left, saying why', async () => {
    await expect(loadTools({ spec: 'api-3.0.yaml', include: ['tag:nothing'] })).rejects.toThrow(
      /no operations left after --include\/--exclude/,
    );
  });
});

describe('overrides from the config file', () => {
  it('win over the spec and x-mcp, by operationId or "METHOD /path", and name typos', async () => {
    const tools = await loadTools({
      spec: 'api-3.0.yaml',
      baseUrl: 'http://127.0.0.1:9',
      tools: 'all',
      overrides: {
        createItem: { name: 'add_item', annotations: { idempotentHint: true } },
        searchItems: { title: 'Find items' },
        'DELETE /items/{itemId}': { exclude: true },
        getItme: { title: 'typo' },
      },
    });
    await tools.close();
    const added = tools.registry.get('add_item')?.definition;
    expect(added?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    // The spec's own x-mcp name and annotations stay; the override only changes the title.
    const search = tools.registry.get('search_items')?.definition;
    expect(search?.title).toBe('Find items');
    expect(search?.annotations.readOnlyHint).toBe(true);
    expect(tools.registry.get('deleteItem')).toBeUndefined();
    expect(tools.registry.get('createItem')).toBeUndefined();
    expect(tools.warnings).toEqual([
      'override "getItme" matches no operation (use an operationId or "GET /path")',
    ]);
  });
});

describe('dynamic mode', () => {
  it('converts operations when described, and says why one cannot be served', async () => {
    const tools = await loadTools({
      spec: 'broken-operation.json',
      baseUrl: 'http://127.0.0.1:9',
      tools: 'dynamic',
    });
    try {
      expect(tools.warnings).toEqual([]);
      const found = firstText(await tools.call('search_operations', { query: 'get' }));
      expect(found).toContain('get_a: GET /a');
      expect(found).toContain('get_b: GET /b');
      const broken = await tools.call('describe_operation', { operation: 'get_b' });
      expect(broken.isError).toBe(true);
      expect(firstText(broken)).toMatch(/operation GET \/b \(get_b\) cannot be served: .*Missing/);
      const fine = JSON.parse(firstText(await tools.call('describe_operation', { operation: 'get_a' })));
      expect(fine.annotations.readOnlyHint).toBe(true);
    } finally {
      await tools.close();
    }
  });
});

describe('--tools auto', () => {
  it('lists every operation for a small spec and meta-tools when asked for dynamic', async () => {
    expect((await names({ spec: 'api-3.0.yaml', tools: 'auto' })).size).toBeGreaterThan(30);
    expect([...(await names({ spec: 'api-3.0.yaml', tools: 'dynamic' })).keys()].sort()).toEqual([
      'call_operation',
      'call_read_operation',
      'describe_operation',
      'search_operations',
    ]);
  });
});
