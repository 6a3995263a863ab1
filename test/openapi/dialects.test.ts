import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileValidator } from '../../src/index.js';
import { echoOf, type LoadedTools, type Loose, loadTools } from './helpers/in-process.js';
import { PNG, startUpstream, type Upstream } from './helpers/upstream.js';

// Swagger 2.0, OpenAPI 3.1, circular schemas, a multi-file spec, and specs that cannot be served.
let upstream: Upstream;
let swagger: LoadedTools;
const saved = { ...process.env };

beforeAll(async () => {
  Object.assign(process.env, {
    BRIDGE_API_KEY_API_KEY: 'sw-key',
    BRIDGE_BASICAUTH_USERNAME: 'u',
    BRIDGE_BASICAUTH_PASSWORD: 'p',
    BRIDGE_APP_CLIENT_ID: 'client-1',
    BRIDGE_APP_CLIENT_SECRET: 'shh',
  });
  upstream = await startUpstream();
  swagger = await loadTools({ spec: 'swagger-2.0.json', baseUrl: upstream.url, tools: 'all' });
});
afterAll(async () => {
  await swagger?.close();
  await upstream?.close();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
});

function schemaOf(tools: LoadedTools, name: string): Loose {
  const tool = tools.registry.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.definition.inputSchema as Loose;
}

describe('Swagger 2.0', () => {
  it('converts parameters, body and definitions', () => {
    const find = schemaOf(swagger, 'findPets');
    expect(find.properties.limit).toEqual({ type: 'integer', minimum: 1, exclusiveMaximum: 100 });
    expect(find.properties.status).toEqual({
      type: 'array',
      items: { type: 'string', enum: ['available', 'sold'] },
    });
    const add = schemaOf(swagger, 'addPet');
    expect(add.required).toEqual(['body']);
    // Pet is used once: written in place, not in `$defs`.
    expect(add.$defs).toBeUndefined();
    expect(add.properties.body.properties.id).toBeUndefined();
    expect(add.properties.body.properties.tag).toEqual({ type: ['string', 'null'] });
    expect(add.properties.body.properties.name.examples).toEqual(['doggie']);
    const upload = schemaOf(swagger, 'uploadImage');
    expect(upload.properties.body.properties.file).toEqual({ type: 'string', contentEncoding: 'base64' });
    expect(swagger.registry.get('getPet')?.definition.outputSchema).toBeDefined();
    for (const tool of swagger.registry.tools)
      expect(() => compileValidator(tool.definition.inputSchema)).not.toThrow();
  });

  it('serializes collection formats and authenticates with the global API key', async () => {
    const seen = echoOf(
      await swagger.call('findPets', {
        status: ['available', 'sold'],
        tags: ['a', 'b'],
        ssv: ['c', 'd'],
        pipes: ['e', 'f'],
        limit: 5,
        'X-Request-Id': 'r1',
      }),
    );
    expect(seen.url).toBe('/v1/pets?status=available&status=sold&tags=a,b&ssv=c%20d&pipes=e|f&limit=5');
    expect(seen.headers.api_key).toBe('sw-key');
    expect(seen.headers['x-request-id']).toBe('r1');
  });

  it('sends body, urlencoded and multipart form data; basic and application-flow OAuth2', async () => {
    const add = echoOf(await swagger.call('addPet', { body: { name: 'Rex', photoUrls: [] } }));
    expect(JSON.parse(add.body)).toEqual({ name: 'Rex', photoUrls: [] });
    const form = echoOf(await swagger.call('updatePetWithForm', { petId: 3, body: { status: 'sold' } }));
    expect(form.body).toBe('status=sold');
    const upload = echoOf(
      await swagger.call('uploadImage', {
        petId: 3,
        body: { file: PNG.toString('base64'), additionalMetadata: 'm' },
      }),
    );
    expect(upload.headers['content-type']).toMatch(/^multipart\/form-data/);
    expect(upstream.requests.at(-1)?.body.includes(PNG)).toBe(true);
    const pet = echoOf(await swagger.call('getPet', { petId: 1 }));
    expect(pet.headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    const oauth = await swagger.call('withApplicationFlow');
    expect(oauth.isError).toBeFalsy();
    // No declared output schema: a JSON object still comes back as structured content.
    expect(swagger.registry.get('withApplicationFlow')?.definition.outputSchema).toBeUndefined();
    expect(oauth.structuredContent).toMatchObject({ method: 'GET', url: '/v1/auth/oauth' });
    expect(upstream.tokens.at(-1)).toBe('token-1-pets');
  });

  it('calls host + basePath when no --base-url is given', async () => {
    await using tools = await disposable(
      loadTools({ spec: 'swagger-2.0.json', tools: 'all', timeoutMs: 2000, retries: 0 }),
    );
    const result = await tools.call('getPet', { petId: 1 });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('petstore.example.com');
  });
});

describe('OpenAPI 3.1', () => {
  it('keeps 2020-12 keywords, type arrays and $ref siblings', async () => {
    await using tools = await disposable(loadTools({ spec: 'api-3.1.yaml', tools: 'all' }));
    const get = schemaOf(tools, 'getThing');
    expect(get.properties.id.type).toEqual(['string', 'integer']);
    expect(get.properties.mode).toEqual({ const: 'fast', type: 'string' });
    const put = schemaOf(tools, 'putThing');
    // Thing and Meta are used once: written in place, the $ref's sibling description kept.
    expect(put.$defs).toBeUndefined();
    const thing = put.properties.body;
    expect(thing.properties.size).toEqual({ type: ['number', 'null'], exclusiveMinimum: 0 });
    expect(thing.properties.tags).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }],
      items: false,
    });
    expect(thing.properties.meta).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Sibling description allowed in 3.1',
    });
    expect(thing.properties.meta.$ref).toBeUndefined();
    const output = tools.registry.get('getThing')?.definition.outputSchema as Loose;
    expect(output).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        size: { type: ['number', 'null'] },
        tags: { type: 'array', items: {} },
        meta: { type: 'object' },
      },
    });
    expect(() => compileValidator(put)).not.toThrow();
  });
});

describe('OpenAPI 3.1 schemas that declare another dialect ($schema draft-04)', () => {
  it('are converted to 2020-12 and validated; a schema that still does not compile is skipped with a warning', async () => {
    await using tools = await disposable(
      loadTools({ spec: 'legacy-dialect-3.1.yaml', baseUrl: upstream.url, tools: 'all' }),
    );
    expect(tools.registry.tools.map((t) => t.name)).toEqual(['getPlain', 'setCounter']);
    expect(tools.warnings.join('\n')).toContain(
      'skipped operation GET /broken (getBroken) cannot be served: its input schema, written for https://example.com/schemas/my-dialect, does not compile as JSON Schema 2020-12 after conversion',
    );
    const input = schemaOf(tools, 'setCounter');
    expect(input.properties.step).toEqual({ type: 'integer', exclusiveMinimum: 0 });
    // Counter is used once, so it is written in place as the body (no $defs entry).
    const counter = input.properties.body;
    expect(input.$defs?.Counter).toBeUndefined();
    expect(counter).toMatchObject({
      type: 'object',
      required: ['value'],
      properties: {
        value: { type: 'number', exclusiveMaximum: 100 },
        unit: { type: 'string' },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
      },
      dependentRequired: { unit: ['value'] },
      dependentSchemas: { pair: { required: ['unit'] } },
    });
    expect(counter.dependencies).toBeUndefined();
    expect(() => compileValidator(input)).not.toThrow();

    // Arguments are checked: nothing reaches the API until they fit.
    const before = upstream.requests.length;
    for (const args of [
      { name: 'a', body: { value: 1 } },
      { name: 'a', step: 0, body: { value: 1 } },
      { name: 'a', step: 1, body: { value: 100 } },
      { name: 'a', step: 1, body: { unit: 'm' } },
      { name: 'a', step: 1, body: { value: 1, pair: ['x', 2, 3] } },
    ]) {
      const refused = await tools.call('setCounter', args);
      expect(refused.isError, JSON.stringify(args)).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('Invalid arguments for tool');
    }
    expect(upstream.requests.length).toBe(before);
    const ok = echoOf(
      await tools.call('setCounter', { name: 'a', step: 1, body: { value: 1, unit: 'm', pair: ['x', 2] } }),
    );
    expect(ok.url).toBe('/v1/counters/a?step=1');
  });
});

describe('circular and multi-file specs', () => {
  it('keeps circular schemas as $refs into $defs', async () => {
    await using tools = await disposable(loadTools({ spec: 'circular.yaml', tools: 'all' }));
    const input = schemaOf(tools, 'plantTree');
    expect(input.$defs.Node.properties.children.items).toEqual({ $ref: '#/$defs/Node' });
    const validate = compileValidator(input);
    expect(validate({ body: { value: 'a', children: [{ value: 'b', children: [] }] } })).toEqual([]);
    expect(validate({ body: { children: [{ value: 3 }] } })).not.toEqual([]);
    const output = tools.registry.get('plantTree')?.definition.outputSchema as Loose;
    // The output outline stops at the top level: a cycle below it is never followed.
    expect(output).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, employer: { type: 'object' } },
    });
  });

  it('resolves relative external $refs, including cycles across files', async () => {
    await using tools = await disposable(loadTools({ spec: join('multi-file', 'main.yaml'), tools: 'all' }));
    const show = schemaOf(tools, 'showPet');
    expect(show.properties.petId).toEqual({ type: 'integer', description: "The pet's id." });
    const create = schemaOf(tools, 'createPet');
    expect(JSON.stringify(create)).toContain('owner');
    expect(() => compileValidator(create)).not.toThrow();
    expect(compileValidator(create)({ body: { name: 'a', owner: { pets: [{ name: 'b' }] } } })).toEqual([]);
  });
});

describe('specs that cannot be served', () => {
  it.each([
    ['missing.yaml', /cannot read the OpenAPI spec .*missing\.yaml: no such file/],
    ['invalid.yaml', /invalid\.yaml is neither valid JSON nor valid YAML/],
    ['unknown-version.json', /OpenAPI version 4\.0\.0 is not supported/],
  ])('%s fails with a message naming the file and the problem', async (spec, message) => {
    await expect(loadTools({ spec })).rejects.toThrow(message);
  });

  it('skips an operation that cannot be converted, names it, and serves the rest', async () => {
    await using tools = await disposable(
      loadTools({ spec: 'broken-operation.json', baseUrl: 'http://127.0.0.1:9', tools: 'all' }),
    );
    expect(tools.registry.tools.map((t) => t.name)).toEqual(['get_a']);
    expect(tools.warnings.join('\n')).toMatch(/skipped operation GET \/b .*Missing/);
  });

  it('fails --validate on a spec that breaks the OpenAPI schema', async () => {
    await expect(loadTools({ spec: 'broken-operation.json', validate: true })).rejects.toThrow(
      /fails OpenAPI validation/,
    );
  });

  it('validates a correct spec with --validate', async () => {
    await using tools = await disposable(loadTools({ spec: 'circular.yaml', validate: true }));
    expect(tools.registry.tools).toHaveLength(1);
  });
});

async function disposable(promise: Promise<LoadedTools>) {
  const tools = await promise;
  return Object.assign(tools, { [Symbol.asyncDispose]: () => tools.close() });
}
