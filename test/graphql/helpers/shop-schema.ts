import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { graphqlCjs } from './graphql-cjs.js';

const { GraphQLError } = graphqlCjs;

/** The hand-written schema of `fixtures/graphql/shop.graphql`. */
export const SHOP_SDL_PATH = fileURLToPath(
  new URL('../../../fixtures/graphql/shop.graphql', import.meta.url),
);
export const FIXTURES = fileURLToPath(new URL('../../../fixtures/graphql/', import.meta.url));

interface Product {
  id: string;
  name: string;
  price: number;
  stock: number | null;
  status: string;
  tags: string[];
  makerId: string;
  meta?: unknown;
}

const makers = [{ id: 'm1', name: 'Acme' }];

function products(): Product[] {
  return [
    {
      id: 'p1',
      name: 'Anvil',
      price: 99.5,
      stock: 3,
      status: 'ACTIVE',
      tags: ['heavy'],
      makerId: 'm1',
      meta: { kg: 50 },
    },
    { id: 'p2', name: 'Rocket', price: 1500, stock: null, status: 'ARCHIVED', tags: [], makerId: 'm1' },
    { id: 'broken', name: 'Broken', price: 1, stock: 0, status: 'ACTIVE', tags: [], makerId: 'm1' },
  ];
}

/**
 * An executable schema over a tiny in-memory shop, with resolvers precise enough to check what the
 * bridge sends: `products` echoes its arguments in `pageInfo.endCursor`, `fragile` fails on one item.
 */
export function shopSchema(): GraphQLSchema {
  const all = products();
  const connection = (items: unknown[], args: Record<string, unknown>) => ({
    totalCount: items.length,
    pageInfo: { hasNextPage: false, endCursor: JSON.stringify(args) },
    nodes: typeof args.first === 'number' ? items.slice(0, args.first) : items,
  });
  return makeExecutableSchema({
    typeDefs: readFileSync(SHOP_SDL_PATH, 'utf8'),
    resolvers: {
      Query: {
        product: (_: unknown, { id }: { id: string }) =>
          all.find((p) => p.id === id && p.id !== 'broken') ?? null,
        products: (_: unknown, args: { filter?: { maxPrice?: number } }) =>
          connection(
            all.filter((p) => p.id !== 'broken' && p.price <= (args.filter?.maxPrice ?? Infinity)),
            args,
          ),
        search: (_: unknown, { text }: { text: string }) =>
          [...all.filter((p) => p.id !== 'broken'), ...makers].filter((x) =>
            x.name.toLowerCase().includes(text),
          ),
        fragile: () => all.filter((p) => p.id !== 'p2'),
        catalogue: (_: unknown, { size }: { size: number }) =>
          Array.from({ length: size }, (_, i) => `catalogue item ${i} ${'x'.repeat(40)}`),
        node: (_: unknown, { id }: { id: string }) =>
          all.find((p) => p.id === id) ?? makers.find((m) => m.id === id) ?? null,
        serverTime: () => '2026-11-22T04:00:00Z',
      },
      Mutation: {
        createProduct: (_: unknown, { input }: { input: Record<string, unknown> }) => ({
          id: 'p-new',
          status: 'ACTIVE',
          tags: [],
          makerId: 'm1',
          ...input,
        }),
        deleteProduct: (_: unknown, { id }: { id: string }) => {
          if (id === 'p2') {
            throw new GraphQLError('p2 is locked', { extensions: { code: 'FORBIDDEN', reason: 'locked' } });
          }
          return true;
        },
        setStock: (_: unknown, { id, stock }: { id: string; stock: number }) => {
          const product = all.find((p) => p.id === id);
          return product ? { ...product, stock } : null;
        },
      },
      Product: {
        name: (product: Product) => {
          if (product.id === 'broken')
            throw new GraphQLError('name unavailable', { extensions: { code: 'FLAKY' } });
          return product.name;
        },
        maker: (product: Product) => makers.find((m) => m.id === product.makerId) ?? null,
        reviews: (_: Product, args: Record<string, unknown>) =>
          connection(
            [
              { id: 'r1', stars: 5, text: 'solid' },
              { id: 'r2', stars: 1, text: null },
            ],
            args,
          ),
        priceIn: (product: Product) => product.price,
      },
      Maker: {
        products: (maker: { id: string }, args: Record<string, unknown>) =>
          connection(
            all.filter((p) => p.makerId === maker.id && p.id !== 'broken'),
            args,
          ),
      },
      SearchResult: {
        __resolveType: (x: { price?: number }) => (x.price === undefined ? 'Maker' : 'Product'),
      },
      Node: { __resolveType: (x: { price?: number }) => (x.price === undefined ? 'Maker' : 'Product') },
    },
  });
}
