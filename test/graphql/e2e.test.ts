import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, MATRIX } from '../helpers/connect.js';
import { BRIDGE_BIN, type ServerCommand } from '../helpers/start-bridge.js';
import { type GraphqlServer, startGraphqlServer } from './helpers/graphql-server.js';
import { at } from './helpers/in-process.js';
import { FIXTURES, shopSchema } from './helpers/shop-schema.js';

// The real `bridge graphql` process, introspecting a real GraphQL server, driven by both SDK clients.
let server: GraphqlServer;
let bridge: ServerCommand;

beforeAll(async () => {
  server = await startGraphqlServer(shopSchema());
  bridge = {
    script: BRIDGE_BIN,
    args: [
      'graphql',
      server.url,
      '--operations',
      join(FIXTURES, 'operations'),
      '--generic',
      '--scalar',
      'DateTime=date-time',
      '--header',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the adapter expands ${VAR} itself.
      'X-Api-Key: ${SHOP_E2E_KEY}',
    ],
    env: { SHOP_E2E_KEY: 'k-123' },
  };
});
afterAll(async () => {
  await server?.[Symbol.asyncDispose]();
});

describe.each(MATRIX)('bridge graphql with the $kind client over $wire', ({ kind, wire }) => {
  it('lists annotated tools and calls a query, an operation and a mutation', async () => {
    await using client = await connect(kind, wire, bridge);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining(['product', 'products', 'CheapProducts', 'graphql_query']),
    );
    expect(byName.get('product')?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(byName.get('deleteProduct')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(at(byName.get('products')?.inputSchema, '$defs.ProductFilter.properties.since.format')).toBe(
      'date-time',
    );

    const before = server.requests.length;
    const product = await client.callTool('product', { id: 'p1', select: '{ name price }' });
    expect(product.isError).toBeFalsy();
    expect(product.structuredContent).toEqual({ product: { name: 'Anvil', price: 99.5 } });
    expect(server.requests[before]?.headers['x-api-key']).toBe('k-123');

    const cheap = await client.callTool('CheapProducts', { max: 100 });
    expect(at(cheap.structuredContent, 'products.nodes.0.name')).toBe('Anvil');

    const created = await client.callTool('createProduct', { input: { name: 'Magnet', price: 2 } });
    expect(at(created.structuredContent, 'createProduct.name')).toBe('Magnet');
  });

  it('maps GraphQL errors, invalid selections and large results', async () => {
    await using client = await connect(kind, wire, bridge);
    const fragile = await client.callTool('fragile');
    // Messages carry the whole result, so a failure on one transport explains itself.
    expect(fragile.isError, JSON.stringify(fragile)).toBe(true);
    expect(at(fragile.structuredContent, 'errors.0.path')).toEqual(['fragile', 1, 'name']);
    expect(at(fragile.structuredContent, 'errors.0.extensions.code')).toBe('FLAKY');
    expect(at(fragile.structuredContent, 'data.fragile.0.name')).toBe('Anvil');

    const select = await client.callTool('product', { id: 'p1', select: '{ nope }' });
    expect(select.isError, JSON.stringify(select)).toBe(true);
    expect(String(select.content[0]?.text)).toContain('Cannot query field "nope" on type "Product".');

    const refused = await client.callTool('graphql_query', { query: 'mutation { deleteProduct(id: "p1") }' });
    expect(refused.isError, JSON.stringify(refused)).toBe(true);

    const large = await client.callTool('catalogue', { size: 1500 });
    expect(large.isError, JSON.stringify(large.content.slice(1))).toBeFalsy();
    const link = large.content.find((block) => block.type === 'resource_link') as { uri: string } | undefined;
    expect(link?.uri, JSON.stringify(large.content.slice(1))).toMatch(/\/page\/2$/);
    const page = await client.readResource(String(link?.uri));
    expect(String(page.contents[0]?.text).length, JSON.stringify(page).slice(0, 500)).toBeGreaterThan(1000);
  });
});
