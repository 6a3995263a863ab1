import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphqlSource, type GraphqlOptions } from '../../adapters/graphql/index.js';
import { operationTitle } from '../../adapters/graphql/operations-to-tools.js';
import { startGraphqlServer } from './helpers/graphql-server.js';
import { at, firstText, type LoadedTools, loadTools } from './helpers/in-process.js';
import { FIXTURES, SHOP_SDL_PATH, shopSchema } from './helpers/shop-schema.js';

// Precise checks against a small hand-written schema whose resolvers echo what they receive.
let server: Awaited<ReturnType<typeof startGraphqlServer>>;
let shop: LoadedTools;

async function load(options: Partial<GraphqlOptions> = {}): Promise<LoadedTools> {
  return loadTools(createGraphqlSource({ endpoint: server.url, ...options }, FIXTURES));
}

function schemaOf(tools: LoadedTools, name: string): unknown {
  const tool = tools.registry.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.definition.inputSchema;
}

beforeAll(async () => {
  server = await startGraphqlServer(shopSchema());
  shop = await load({
    generic: true,
    operations: 'operations',
    scalars: { DateTime: 'date-time', JSON: 'any' },
    headers: { Authorization: 'Bearer sekret', 'X-Team': 'tools' },
  });
});
afterAll(async () => {
  await server?.[Symbol.asyncDispose]();
});

describe('tools from the shop schema (introspected)', () => {
  it('offers one tool per root field, per operation, and the generic pair; no subscriptions', () => {
    expect(shop.registry.tools.map((tool) => tool.name)).toEqual([
      'CheapProducts',
      'RemoveProduct',
      'catalogue',
      'createProduct',
      'deleteProduct',
      'fragile',
      'graphql_mutate',
      'graphql_query',
      'graphql_schema',
      'node',
      'product',
      'products',
      'search',
      'serverTime',
      'setStock',
    ]);
    expect(shop.warnings.join('\n')).toMatch(/anonymous query is skipped/);
    expect(shop.warnings.join('\n')).toMatch(/subscription Added is skipped/);
    expect(shop.warnings.join('\n')).toMatch(/operation Broken is skipped: Cannot query field "nope"/);
  });

  it('maps scalars, enums, input objects, lists and non-null to JSON Schema', () => {
    const products = schemaOf(shop, 'products');
    expect(at(products, 'properties.first')).toEqual({
      type: 'integer',
      minimum: -2147483648,
      maximum: 2147483647,
    });
    expect(at(products, 'properties.limit')).toMatchObject({ type: 'integer', default: 10 });
    expect(at(products, 'properties.filter')).toEqual({ $ref: '#/$defs/ProductFilter' });
    expect(at(products, 'required')).toBeUndefined();
    const filter = at(products, '$defs.ProductFilter');
    expect(at(filter, 'description')).toBe('A filter; filters nest through `and`.');
    expect(at(filter, 'properties.and')).toEqual({ type: 'array', items: { $ref: '#/$defs/ProductFilter' } });
    expect(at(filter, 'properties.minPrice')).toEqual({ type: 'number' });
    expect(at(filter, 'properties.since')).toMatchObject({ type: 'string', format: 'date-time' });
    expect(at(filter, 'properties.statusIn.items')).toMatchObject({
      type: 'string',
      enum: ['ACTIVE', 'ARCHIVED'],
    });
    expect(at(filter, 'properties.statusIn.items.description')).toContain(
      'ARCHIVED: Hidden, kept for the records.',
    );
    expect(at(products, 'additionalProperties')).toBe(false);

    const create = schemaOf(shop, 'createProduct');
    expect(at(create, 'required')).toEqual(['input']);
    const input = at(create, '$defs.NewProduct');
    expect(at(input, 'required')).toEqual(['name', 'price']);
    expect(at(input, 'properties.stock')).toMatchObject({ type: 'integer', default: 0 });
    expect(at(input, 'properties.tags')).toEqual({ type: 'array', items: { type: 'string' } });
    expect(at(input, 'properties.meta.type')).toBeUndefined();

    expect(at(schemaOf(shop, 'product'), 'required')).toEqual(['id']);
    expect(at(schemaOf(shop, 'product'), 'properties.id')).toEqual({ type: 'string' });
    expect(at(schemaOf(shop, 'serverTime'), 'properties')).toEqual({});
  });

  it('infers annotations: queries read-only, deletes destructive, generic mutate destructive', () => {
    const hints = (name: string) => shop.registry.get(name)?.definition.annotations;
    expect(hints('product')).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(hints('createProduct')).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(hints('deleteProduct')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(hints('setStock')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(hints('RemoveProduct')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints('CheapProducts')).toMatchObject({ readOnlyHint: true });
    expect(hints('graphql_query')).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(hints('graphql_mutate')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('sends the arguments as variables, with the configured headers, and returns data', async () => {
    const before = server.requests.length;
    const result = await shop.call('product', { id: 'p1' });
    expect(result.isError).toBeUndefined();
    const seen = server.requests[before];
    expect(seen?.body.variables).toEqual({ id: 'p1' });
    expect(seen?.body.query).toMatch(/^query product\(\$id:ID!\)\{product\(id:\$id\)\{id name /);
    expect(seen?.headers.authorization).toBe('Bearer sekret');
    expect(seen?.headers['x-team']).toBe('tools');
    // Introspection (the first request) carried the same headers.
    expect(server.requests[0]?.body.operationName).toBe('IntrospectionQuery');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sekret');
    const product = at(result.structuredContent, 'product');
    expect(product).toMatchObject({
      id: 'p1',
      name: 'Anvil',
      price: 99.5,
      status: 'ACTIVE',
      tags: ['heavy'],
    });
    expect(at(product, 'meta')).toEqual({ kg: 50 });
    // Nested objects and connections at depth 1; fields with required arguments and deprecated ones left out.
    expect(at(product, 'maker')).toEqual({ id: 'm1', name: 'Acme' });
    expect(at(product, 'reviews.pageInfo')).toEqual({ hasNextPage: false, endCursor: '{"first":10}' });
    expect(at(product, 'reviews.nodes')).toHaveLength(2);
    expect(product).not.toHaveProperty('priceIn');
    expect(product).not.toHaveProperty('legacyCode');
    expect(JSON.parse(firstText(result))).toEqual(result.structuredContent);
  });

  it('passes input objects, enums and omitted arguments exactly; defaults first on root connections', async () => {
    const before = server.requests.length;
    const filter = { nameContains: 'a', statusIn: ['ACTIVE'], and: [{ minPrice: 1 }] };
    const result = await shop.call('products', { filter });
    const seen = server.requests[before];
    expect(seen?.body.variables).toEqual({ filter, first: 10 });
    const endCursor = at(result.structuredContent, 'products.pageInfo.endCursor');
    expect(JSON.parse(String(endCursor))).toEqual({ filter, first: 10, limit: 10 });
  });

  it('refuses arguments that do not fit the schema before sending anything', async () => {
    const before = server.requests.length;
    const tooBig = await shop.call('products', { first: 2 ** 31 });
    expect(tooBig.isError).toBe(true);
    expect(firstText(tooBig)).toContain('/first: must be at most 2147483647');
    const badEnum = await shop.call('products', { filter: { statusIn: ['GONE'] } });
    expect(badEnum.isError).toBe(true);
    const missing = await shop.call('product', {});
    expect(firstText(missing)).toContain('/id: is required');
    expect(server.requests.length).toBe(before);
  });

  it('lets `select` replace the selection, and reports GraphQL’s own message when it is invalid', async () => {
    const ok = await shop.call('product', { id: 'p1', select: '{ name maker { name } }' });
    expect(ok.structuredContent).toEqual({ product: { name: 'Anvil', maker: { name: 'Acme' } } });
    const bare = await shop.call('product', { id: 'p1', select: 'priceIn(currency: "EUR")' });
    expect(bare.structuredContent).toEqual({ product: { priceIn: 99.5 } });
    const before = server.requests.length;
    const bad = await shop.call('product', { id: 'p1', select: '{ name nope }' });
    expect(bad.isError).toBe(true);
    expect(firstText(bad)).toContain('Cannot query field "nope" on type "Product".');
    const unparsable = await shop.call('product', { id: 'p1', select: '{ name ' });
    expect(firstText(unparsable)).toContain('Syntax Error');
    // Closing the braces early cannot turn a read-only tool into a mutation.
    const smuggled = await shop.call('product', {
      id: 'p1',
      select: '{ name } } mutation product { deleteProduct(id: "p1") } fragment F on Query { serverTime',
    });
    expect(smuggled.isError).toBe(true);
    const smuggledFragment = await shop.call('product', {
      id: 'p1',
      select: '{ name } } fragment F on Query { serverTime',
    });
    expect(smuggledFragment.isError).toBe(true);
    expect(server.requests.length).toBe(before);
  });

  it('selects __typename and inline fragments for unions and interfaces', async () => {
    const result = await shop.call('search', { text: 'a' });
    const items = at(result.structuredContent, 'search');
    expect(items).toContainEqual(expect.objectContaining({ __typename: 'Maker', id: 'm1', name: 'Acme' }));
    expect(items).toContainEqual(expect.objectContaining({ __typename: 'Product', id: 'p1', price: 99.5 }));
    const node = await shop.call('node', { id: 'm1' });
    expect(node.structuredContent).toEqual({ node: { id: 'm1', __typename: 'Maker' } });
  });

  it('turns errors into isError, keeping message, path, extensions and partial data', async () => {
    const result = await shop.call('fragile');
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('- name unavailable (at fragile.1.name)');
    const structured = result.structuredContent;
    expect(at(structured, 'errors')).toEqual([
      expect.objectContaining({
        message: 'name unavailable',
        path: ['fragile', 1, 'name'],
        extensions: { code: 'FLAKY' },
      }),
    ]);
    expect(at(structured, 'data.fragile.0')).toMatchObject({ id: 'p1', name: 'Anvil' });
    expect(at(structured, 'data.fragile.1')).toBeNull();

    const locked = await shop.call('deleteProduct', { id: 'p2' });
    expect(locked.isError).toBe(true);
    expect(at(locked.structuredContent, 'errors.0')).toMatchObject({
      message: 'p2 is locked',
      path: ['deleteProduct'],
      extensions: { code: 'FORBIDDEN', reason: 'locked' },
    });
  });

  it('runs mutations with input objects', async () => {
    const before = server.requests.length;
    const result = await shop.call('createProduct', { input: { name: 'Magnet', price: 3, tags: ['x'] } });
    expect(result.isError).toBeUndefined();
    expect(server.requests[before]?.body.query).toMatch(/^mutation createProduct\(\$input:NewProduct!\)/);
    expect(at(result.structuredContent, 'createProduct')).toMatchObject({
      id: 'p-new',
      name: 'Magnet',
      stock: 0,
    });
  });

  it('pages a large result through the resource store', async () => {
    const result = await shop.call('catalogue', { size: 2000 });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toBeUndefined();
    const first = firstText(result);
    expect(first.length).toBeLessThanOrEqual(20_000);
    const links = result.content.filter((block) => block.type === 'resource_link');
    expect(links.length).toBeGreaterThan(1);
    let whole = first;
    const pages = result.content.filter((b) => b.type === 'resource_link').length + 1;
    const uri = (links[0] as { uri: string }).uri.replace(/\/page\/\d+$/, '');
    for (let page = 2; page <= pages; page++) {
      const contents = await shop.resources.read(`${uri}/page/${page}`, 'test');
      whole += (contents as { text: string }).text;
    }
    expect(JSON.parse(whole).catalogue).toHaveLength(2000);
  });

  it('serves operation documents with their comments as description and fragments resolved', async () => {
    const tool = shop.registry.get('CheapProducts')?.definition;
    expect(tool?.description).toBe('Lists cheap products with their maker. Use it to find bargains.');
    // Every tool has a title clients can show: operations get their name in words.
    expect(tool?.title).toBe('Cheap products');
    expect(shop.registry.get('RemoveProduct')?.definition.title).toBe('Remove product');
    for (const each of shop.registry.tools) expect(each.definition.title, each.name).toBeTruthy();
    expect(operationTitle('search_open_issues')).toBe('Search open issues');
    expect(operationTitle('getHTTPStatus')).toBe('Get HTTP status');
    expect(tool?.inputSchema).toMatchObject({
      required: ['max'],
      properties: { first: { type: 'integer' } },
    });
    const before = server.requests.length;
    const result = await shop.call('CheapProducts', { max: 100, first: 5 });
    expect(server.requests[before]?.body.operationName).toBe('CheapProducts');
    expect(server.requests[before]?.body.query).toContain('fragment ProductBits on Product');
    expect(at(result.structuredContent, 'products.nodes')).toEqual([
      { id: 'p1', name: 'Anvil', maker: { name: 'Acme' }, price: 99.5 },
    ]);
  });

  it('graphql_schema prints one type or searches names, locally', async () => {
    expect(shop.registry.get('graphql_schema')?.definition.annotations).toMatchObject({
      readOnlyHint: true,
      openWorldHint: false,
    });
    const before = server.requests.length;
    const type = await shop.call('graphql_schema', { type: 'NewProduct' });
    expect(firstText(type)).toBe(
      'input NewProduct {\n  name: String!\n  price: Float!\n  stock: Int = 0\n  tags: [String!]\n  meta: JSON\n}',
    );
    const search = await shop.call('graphql_schema', { search: 'PRICE' });
    expect(firstText(search).split('\n')).toEqual(
      expect.arrayContaining([
        'Product.price: Float!',
        'Product.priceIn: Float',
        'ProductFilter.maxPrice: Float',
      ]),
    );
    const unknown = await shop.call('graphql_schema', { type: 'product' });
    expect(unknown.isError).toBe(true);
    expect(firstText(unknown)).toContain('did you mean Product');
    expect(server.requests.length).toBe(before);
  });

  it('graphql_query runs queries with variables as an object or a JSON string and refuses mutations', async () => {
    const query = 'query($id: ID!) { product(id: $id) { name } }';
    const asObject = await shop.call('graphql_query', { query, variables: { id: 'p2' } });
    expect(asObject.structuredContent).toEqual({ product: { name: 'Rocket' } });
    const asString = await shop.call('graphql_query', { query, variables: '{"id":"p1"}' });
    expect(asString.structuredContent).toEqual({ product: { name: 'Anvil' } });
    const before = server.requests.length;
    const mutation = await shop.call('graphql_query', { query: 'mutation { deleteProduct(id: "p1") }' });
    expect(mutation.isError).toBe(true);
    expect(firstText(mutation)).toContain('graphql_query is read-only; use graphql_mutate');
    const invalid = await shop.call('graphql_query', { query: '{ product { name } }' });
    expect(firstText(invalid)).toContain('argument "id" of type "ID!" is required');
    const badVariables = await shop.call('graphql_query', { query, variables: { id: ['x', 'y'] } });
    expect(firstText(badVariables)).toContain('Variable "$id"');
    expect(server.requests.length).toBe(before);
    const mutate = await shop.call('graphql_mutate', { query: 'mutation { deleteProduct(id: "p1") }' });
    expect(mutate.structuredContent).toEqual({ deleteProduct: true });
    const readViaMutate = await shop.call('graphql_mutate', { query });
    expect(firstText(readViaMutate)).toContain('use graphql_query');
  });
});

describe('options that change the tool set', () => {
  it('--mutations none drops mutation fields, mutation operations and graphql_mutate', async () => {
    const tools = await load({ mutations: 'none', generic: true, operations: join(FIXTURES, 'operations') });
    const names = tools.registry.tools.map((tool) => tool.name);
    expect(names).toContain('graphql_query');
    expect(names).toContain('CheapProducts');
    for (const gone of ['createProduct', 'deleteProduct', 'RemoveProduct', 'graphql_mutate'])
      expect(names).not.toContain(gone);
  });

  it('--schema reads SDL instead of introspecting, and --depth / --breadth bound the selection', async () => {
    const before = server.requests.length;
    const tools = await load({ schema: SHOP_SDL_PATH, depth: 0, breadth: 2 });
    expect(server.requests.length).toBe(before);
    const result = await tools.call('product', { id: 'p1' });
    expect(result.structuredContent).toEqual({ product: { id: 'p1', name: 'Anvil' } });
    expect(server.requests[before]?.body.query).toBe('query product($id:ID!){product(id:$id){id name}}');
  });

  it('a custom scalar without a mapping is a string, and can be mapped to an inline schema', async () => {
    const plain = await load({ schema: SHOP_SDL_PATH });
    expect(at(schemaOf(plain, 'products'), '$defs.ProductFilter.properties.since')).toEqual({
      type: 'string',
      description: 'A DateTime (custom scalar), as a string.',
    });
    const mapped = await load({
      schema: SHOP_SDL_PATH,
      scalars: { DateTime: { type: 'integer', minimum: 0 } },
    });
    expect(at(schemaOf(mapped, 'products'), '$defs.ProductFilter.properties.since')).toEqual({
      type: 'integer',
      minimum: 0,
    });
  });

  it('an operation named like a root field keeps the plain name; the field tool gets a suffix', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bridge-graphql-ops-'));
    try {
      await writeFile(
        join(dir, 'product.graphql'),
        '# My product.\nquery product($id: ID!) { product(id: $id) { name } }\n',
      );
      const tools = await load({ schema: SHOP_SDL_PATH, operations: dir });
      expect(tools.registry.get('product')?.definition.description).toBe('My product.');
      expect(tools.registry.get('product_2')?.definition.title).toBe('Query.product');
      expect(tools.watchedFiles).toEqual([SHOP_SDL_PATH, join(dir, 'product.graphql')]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
