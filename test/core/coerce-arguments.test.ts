// Models send "HEAD" for ["HEAD"] and "10" for 10. Such slips are accepted when nothing is lost,
// the same way for every adapter (the registry's validator does it), while the schema clients see
// keeps the real types; messages for what is still wrong read as English.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphqlSource } from '../../adapters/graphql/index.js';
import { compileValidator } from '../../src/index.js';
import { git, type LoadedCli, loadCli, makeRepo, tempDir, textOf } from '../cli/helpers.js';
import { startGraphqlServer } from '../graphql/helpers/graphql-server.js';
import { loadTools as loadGraphql } from '../graphql/helpers/in-process.js';
import { shopSchema } from '../graphql/helpers/shop-schema.js';
import { echoOf, type Loose, loadTools as loadOpenapi } from '../openapi/helpers/in-process.js';
import { startUpstream, type Upstream } from '../openapi/helpers/upstream.js';

const schema = {
  type: 'object',
  properties: {
    revisions: { type: 'array', items: { type: 'string' } },
    counts: { type: 'array', items: { type: 'integer' } },
    limit: { type: 'integer', minimum: 1 },
    ratio: { type: 'number' },
    label: { type: ['string', 'null'] },
    name: { type: 'string', minLength: 2 },
    verbose: { type: 'boolean' },
    id: { type: 'string' },
  },
  additionalProperties: false,
};

describe('the validator', () => {
  const validate = compileValidator(schema);

  it('accepts lossless slips and corrects the arguments in place', () => {
    const args = { revisions: 'HEAD', counts: '7', limit: '10', ratio: '-2.5e1', verbose: 'false' };
    expect(validate(args)).toEqual([]);
    expect(args).toEqual({
      revisions: ['HEAD'],
      counts: [7],
      limit: 10,
      ratio: -25,
      verbose: false,
    });
  });

  it('refuses what a conversion would change, with messages that read naturally', () => {
    const args = { limit: '1.5', ratio: 'fast', label: 3.5, name: 'x', counts: ['0x10'], verbose: 'yes' };
    expect(validate(args)).toEqual([
      { path: '/counts/0', message: 'must be an integer' },
      { path: '/limit', message: 'must be an integer' },
      { path: '/ratio', message: 'must be a number' },
      { path: '/label', message: 'must be a string or null' },
      { path: '/name', message: 'must have at least 2 characters' },
      { path: '/verbose', message: 'must be a boolean' },
    ]);
    expect(validate({ id: 42 })).toEqual([{ path: '/id', message: 'must be a string' }]);
    expect(args.limit).toBe('1.5');
    expect(validate({ limit: '0' })).toEqual([{ path: '/limit', message: 'must be at least 1' }]);
    expect(validate({ limit: '12345678901234567890' })).toEqual([
      { path: '/limit', message: 'must be an integer' },
    ]);
  });
});

describe('in every adapter alike', () => {
  let upstream: Upstream;
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it('OpenAPI: a numeric string for an integer parameter, one value for an array', async () => {
    const tools = await loadOpenapi({ spec: 'swagger-2.0.json', baseUrl: upstream.url, tools: 'all' });
    try {
      const find = tools.registry.get('findPets')?.definition.inputSchema as Loose;
      expect(find.properties.limit.type).toBe('integer');
      expect(find.properties.status.type).toBe('array');
      const seen = echoOf(await tools.call('findPets', { status: 'sold', limit: '5' }));
      expect(seen.url).toBe('/v1/pets?status=sold&limit=5');
    } finally {
      await tools.close();
    }
  });

  it('GraphQL: a numeric string for an Int argument', async () => {
    await using server = await startGraphqlServer(shopSchema());
    const shop = await loadGraphql(createGraphqlSource({ endpoint: server.url }, process.cwd()));
    const products = shop.registry.get('products')?.definition.inputSchema as Loose;
    expect(products.properties.first.type).toBe('integer');
    const result = await shop.call('products', { first: '3' });
    expect(result.isError).toBeFalsy();
    expect(server.requests.at(-1)?.body.variables).toMatchObject({ first: 3 });
  });

  describe('CLI', () => {
    const work = tempDir();
    const cache = tempDir('bridge-cli-cache-');
    let cli: LoadedCli;
    let repo: string;
    beforeAll(async () => {
      process.env.BRIDGE_CACHE_DIR = cache.path;
      repo = makeRepo(join(work.path), 3);
      cli = await loadCli({ program: 'git', allow: ['log'] }, repo);
    });
    afterAll(async () => {
      await cli?.[Symbol.asyncDispose]();
      work[Symbol.dispose]();
      cache[Symbol.dispose]();
    });

    it('git_log with revisions: "HEAD" and max-count: "1"', async () => {
      const log = cli.registry.get('git_log')?.definition.inputSchema as Loose;
      expect(log.properties.revisions.type).toBe('array');
      expect(log.properties['max-count'].type).toBe('integer');
      const result = await cli.call('git_log', { revisions: 'HEAD', 'max-count': '1', oneline: true });
      expect(result.isError).toBeFalsy();
      expect(textOf(result).trim()).toBe(git(repo, 'log', '--oneline', '-1', 'HEAD').trim());
    });
  });
});
