import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphqlSource } from '../../adapters/graphql/index.js';
import { tempDir, writeYaml } from '../config/helpers.js';
import { type GraphqlServer, startGraphqlServer } from '../graphql/helpers/graphql-server.js';
import { firstText, loadTools } from '../graphql/helpers/in-process.js';
import { SHOP_SDL_PATH, shopSchema } from '../graphql/helpers/shop-schema.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';

// A tool runs its own root field and nothing else: neither `select` on a field tool nor a second
// operation in a graphql_query document reaches the server. Asserted on what the server received.
let server: GraphqlServer;

beforeAll(async () => {
  server = await startGraphqlServer(shopSchema());
});
afterAll(async () => {
  await server?.[Symbol.asyncDispose]();
});

/** The documents the server received since `from`, each on one line. */
function received(from: number): string[] {
  return server.requests.slice(from).map((request) => String(request.body.query));
}

describe('a root-field tool selects its own field alone', () => {
  it('in a served config, a mutation tool does not run a mutation it was not given', async () => {
    await using dir = await tempDir();
    await writeYaml(dir.file('bridge.yaml'), {
      server: { confirm: 'destructive' },
      sources: [
        {
          kind: 'graphql',
          include: ['createProduct', 'product'],
          options: { endpoint: server.url, schema: SHOP_SDL_PATH },
          tools: { createProduct: { confirm: 'never' } },
        },
      ],
    });
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['serve', dir.file('bridge.yaml')],
    });
    const before = server.requests.length;
    const smuggled = await modernRequest(bridge.url, 'tools/call', {
      name: 'createProduct',
      arguments: { input: { name: 'Magnet', price: 2 }, select: '{ id } deleteProduct(id: "p1")' },
    });
    expect(smuggled.json?.result?.isError, smuggled.text).toBe(true);
    const aliased = await modernRequest(bridge.url, 'tools/call', {
      name: 'product',
      arguments: { id: 'p1', select: '{ id } time: serverTime' },
    });
    expect(aliased.json?.result?.isError, aliased.text).toBe(true);
    expect(received(before)).toEqual([]);

    // The same tool with a plain selection still runs, and sends its own field only.
    const plain = await modernRequest(bridge.url, 'tools/call', {
      name: 'createProduct',
      arguments: { input: { name: 'Magnet', price: 2 }, select: '{ id name }' },
    });
    expect(plain.json?.result?.isError, plain.text).toBeFalsy();
    expect(received(before)).toEqual([
      'mutation createProduct($input:NewProduct!){createProduct(input:$input){id name}}',
    ]);
  });

  it('refuses every way of closing the selection early, sending nothing', async () => {
    const shop = await loadTools(createGraphqlSource({ endpoint: server.url, schema: SHOP_SDL_PATH }, '/'));
    const before = server.requests.length;
    for (const select of [
      '{ id } deleteProduct(id: "p1")',
      'id } deleteProduct(id: "p1") { ',
      '{ id } { serverTime }',
      '{ id } query { serverTime }',
      '{ id } mutation { deleteProduct(id: "p1") }',
      '{ id } fragment F on Query { serverTime }',
      '{ ...F }',
    ]) {
      const result = await shop.call('createProduct', { input: { name: 'M', price: 1 }, select });
      expect(result.isError, `${select}: ${firstText(result)}`).toBe(true);
      expect(firstText(result)).toContain('createProduct: GraphQL rejected the select');
    }
    expect(received(before)).toEqual([]);
  });
});

describe('graphql_query sends the operation it checked, alone', () => {
  it('leaves the other operations of the document out, keeping the fragments the chosen one uses', async () => {
    const shop = await loadTools(
      createGraphqlSource({ endpoint: server.url, schema: SHOP_SDL_PATH, generic: true }, '/'),
    );
    const before = server.requests.length;
    const result = await shop.call('graphql_query', {
      query:
        'query Time { ...When } fragment When on Query { serverTime } mutation Wipe { deleteProduct(id: "p1") }',
      operationName: 'Time',
    });
    expect(result.isError, firstText(result)).toBeFalsy();
    expect(result.structuredContent).toEqual({ serverTime: '2026-11-22T04:00:00Z' });
    expect(received(before)).toEqual(['query Time{...When}fragment When on Query{serverTime}']);
    expect(server.requests.at(-1)?.body.operationName).toBe('Time');

    // Choosing the mutation is still refused, with nothing sent.
    const wipe = await shop.call('graphql_query', {
      query: 'query Time { serverTime } mutation Wipe { deleteProduct(id: "p1") }',
      operationName: 'Wipe',
    });
    expect(firstText(wipe)).toContain('graphql_query is read-only');
    expect(server.requests.length).toBe(before + 1);
  });
});
