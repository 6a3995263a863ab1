import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileValidator } from '../../src/index.js';
import { echoOf, firstText, type LoadedTools, type Loose, loadTools } from './helpers/in-process.js';
import { NOT_UTF8, PNG, startUpstream, type Upstream } from './helpers/upstream.js';

// One OpenAPI 3.0 fixture exercising every parameter style, body type, auth scheme and result kind
// against a real HTTP upstream on 127.0.0.1.
let upstream: Upstream;
let api: LoadedTools;

beforeAll(async () => {
  upstream = await startUpstream();
  api = await loadTools({ spec: 'api-3.0.yaml', baseUrl: upstream.url, tools: 'all', retries: 2 });
});
afterAll(async () => {
  await api?.close();
  await upstream?.close();
});

function tool(name: string) {
  const found = api.registry.get(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found.definition;
}

describe('tools from an OpenAPI 3.0 spec', () => {
  it('names tools from operationIds, method + path, x-mcp, within 64 characters and without collisions', () => {
    const names = api.registry.tools.map((t) => t.name);
    expect(names).toContain('getItem');
    expect(names).toContain('search_items');
    expect(names).toContain('get_no-operation-id_id_details');
    expect(names).toContain('duplicated');
    expect(names).toContain('duplicated_2');
    expect(names).not.toContain('hiddenOperation');
    const long = names.find((n) => n.startsWith('listEveryRepository'));
    expect(long?.length).toBeLessThanOrEqual(64);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
  });

  it('infers all four annotations from the method and lets x-mcp override them', () => {
    expect(tool('getItem').annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(tool('replaceItem').annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(tool('patchItem').annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(tool('deleteItem').annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(tool('createItem').annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(tool('search_items').annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(tool('search_items').title).toBe('Search items');
  });

  it('describes deprecated operations and keeps title and summary', () => {
    expect(tool('oldOperation').description).toContain('Deprecated');
    expect(tool('getItem').title).toBe('Get an item');
    expect(tool('getItem').description).toContain('Returns one item');
  });

  it('converts the 3.0 dialect to JSON Schema 2020-12, components used once written in place', () => {
    const schema = tool('createItem').inputSchema as Loose;
    // Item, Tool and Toy are each referenced once: no `$defs` (shared and recursive ones stay, below).
    expect(schema.$defs).toBeUndefined();
    const item = schema.properties.body;
    expect(item.properties.id).toBeUndefined(); // readOnly: not part of a request
    expect(item.required).toEqual(['name', 'price', 'kind']);
    expect(item.properties.secret).toBeDefined(); // writeOnly stays in requests
    expect(item.properties.name).toEqual({ type: ['string', 'null'], examples: ['Lamp'] });
    expect(item.properties.price).toEqual({ type: 'number', exclusiveMinimum: 0 });
    expect(item.properties.labels).toEqual({ type: 'array', items: {} });
    expect(item.properties.extra.type).toBeDefined();
    const [toolVariant, toy] = item.properties.kind.oneOf;
    expect(toolVariant.properties.type.enum).toEqual(['tool']);
    expect(item.properties.kind.description).toContain('"type"');
    expect(toy.properties.age).toEqual({ type: ['integer', 'null'] });
    expect(JSON.stringify(schema)).not.toMatch(/nullable|discriminator|"example"/);
    expect(() => compileValidator(schema)).not.toThrow();
  });

  it('declares the JSON success response as outputSchema', () => {
    const output = tool('getItem').outputSchema as Loose;
    // An outline of the response: top-level properties and their types, nothing that could refuse
    // a field the API adds or leaves out (see plan-output.ts).
    expect(output).toEqual({
      type: 'object',
      properties: {
        method: { type: 'string' },
        url: { type: 'string' },
        headers: { type: 'object' },
        body: { type: 'string' },
      },
    });
    expect(tool('getBinary').outputSchema).toBeUndefined();
  });

  it('gives a parameter sharing its name with another location a suffixed argument', () => {
    const schema = tool('getItem').inputSchema as Loose;
    expect(schema.properties.itemId.description).toBe('The item.');
    expect(schema.properties.itemId__query).toBeDefined();
    expect(schema.properties.Accept).toBeUndefined();
    expect(schema.required).toEqual(['itemId']);
    expect(schema.additionalProperties).toBe(false);
  });
});

describe('requests', () => {
  it('serializes every query style, headers, cookies and returns structured content', async () => {
    const result = await api.call('getItem', {
      itemId: 'a b',
      tags: ['x', 'y'],
      ids: [1, 2],
      pipes: ['p', 'q'],
      spaces: ['s', 't'],
      filter: { color: 'red', size: 2 },
      point: { x: 1, y: 2 },
      q: 'a&b=c#d',
      json: { deep: [1] },
      'X-Trace': 'trace-1',
      session: 'sess 1',
      itemId__query: 'other',
    });
    expect(result.isError).toBeFalsy();
    const seen = echoOf(result);
    expect(seen.url).toBe(
      '/v1/items/a%20b?tags=x&tags=y&ids=1,2&pipes=p|q&spaces=s%20t&filter%5Bcolor%5D=red&filter%5Bsize%5D=2' +
        '&point=x,1,y,2&q=a%26b%3Dc%23d&json=%7B%22deep%22%3A%5B1%5D%7D&itemId=other',
    );
    expect(seen.headers['x-trace']).toBe('trace-1');
    expect(seen.headers.cookie).toBe('session=sess%201');
    expect(result.structuredContent).toMatchObject({ method: 'GET' });
  });

  it('percent-encodes path parameters so no value can change the path', async () => {
    for (const value of ['?x=1', '#frag', 'a/b', '...']) {
      const seen = echoOf(await api.call('getItem', { itemId: value }));
      expect(seen.url.startsWith('/v1/items/')).toBe(true);
      const segment = seen.url.slice('/v1/items/'.length);
      expect(segment).not.toMatch(/[/?#]/);
      expect(decodeURIComponent(segment)).toBe(value);
    }
    // `%2E` is `.` to a server: a dot-segment is refused, encoded or not (see path-escape.test.ts).
    for (const value of ['../admin', '..', '%2e%2e']) {
      const before = upstream.requests.length;
      const result = await api.call('getItem', { itemId: value });
      expect(upstream.requests.length).toBe(before);
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('the path parameter "itemId" holds the path segment ".."');
    }
  });

  it('serializes matrix, label and simple path styles', async () => {
    const seen = echoOf(await api.call('pathStyles', { m: ['a', 'b'], l: ['c', 'd'], s: { a: 'x' } }));
    expect(seen.url).toBe('/v1/matrix/;m=a;m=b/label/.c,d/simple/a,x');
  });

  it('sends JSON, form, multipart, text and binary bodies', async () => {
    const json = echoOf(
      await api.call('createItem', { body: { name: 'Lamp', price: 3, kind: { type: 'tool' } } }),
    );
    expect(json.headers['content-type']).toBe('application/json');
    expect(JSON.parse(json.body)).toEqual({ name: 'Lamp', price: 3, kind: { type: 'tool' } });

    const patch = echoOf(await api.call('patchItem', { itemId: '1', body: { a: null } }));
    expect(patch.headers['content-type']).toBe('application/merge-patch+json');

    const form = echoOf(await api.call('postForm', { body: { name: 'a b', tags: ['x', 'y'] } }));
    expect(form.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(form.body).toBe('name=a+b&tags=x&tags=y');

    const multipart = echoOf(
      await api.call('postMultipart', { body: { file: PNG.toString('base64'), caption: 'tiny' } }),
    );
    expect(multipart.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(multipart.body).toContain('name="caption"');
    expect(multipart.body).toContain('filename="file"');
    const raw = upstream.requests.at(-1)?.body as Buffer;
    expect(raw.includes(PNG)).toBe(true);

    const text = echoOf(await api.call('postText', { body: 'hello\nworld' }));
    expect(text.headers['content-type']).toBe('text/plain');
    expect(text.body).toBe('hello\nworld');

    await api.call('uploadBytes', { body: NOT_UTF8.toString('base64') });
    const bytes = upstream.requests.at(-1);
    expect(bytes?.headers['content-type']).toBe('application/octet-stream');
    expect(bytes?.body.equals(NOT_UTF8)).toBe(true);
  });

  it('rejects arguments that break the schema with every violation listed', async () => {
    const result = await api.call('createItem', { body: { price: 0, kind: {} }, nope: 1 });
    expect(result.isError).toBe(true);
    const text = firstText(result);
    expect(text).toContain('/nope');
    expect(text).toContain('/body/name');
    expect(text).toContain('/body/price');
  });
});

describe('results', () => {
  it('returns images and audio as such, other bytes as an embedded blob, never UTF-8-decoded', async () => {
    const png = await api.call('getBinary', { kind: 'png' });
    expect(png.content[0]).toEqual({ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' });
    const wav = await api.call('getBinary', { kind: 'wav' });
    expect(wav.content[0]).toMatchObject({ type: 'audio', mimeType: 'audio/wav' });
    const pdf = await api.call('getBinary', { kind: 'pdf' });
    const block = pdf.content[0] as {
      type: string;
      resource: { blob: string; mimeType: string; uri: string };
    };
    expect(block.type).toBe('resource');
    expect(Buffer.from(block.resource.blob, 'base64').equals(NOT_UTF8)).toBe(true);
    expect(block.resource.mimeType).toBe('application/pdf');
    const stored = await api.store.read(block.resource.uri, 'test');
    expect(stored && 'blob' in stored && Buffer.from(stored.blob, 'base64').equals(NOT_UTF8)).toBe(true);
  });

  it('returns text as text and an empty 204 as a status line', async () => {
    expect(firstText(await api.call('getText'))).toBe('plain text, ünïcödé');
    const deleted = await api.call('deleteItem', { itemId: '7' });
    expect(deleted.isError).toBeFalsy();
    expect(firstText(deleted)).toBe('HTTP 204 No Content');
  });

  it('pages a large body: first page inline, the rest as resource links that add up to the whole', async () => {
    const result = await api.call('getBig', { count: 5000 });
    const first = firstText(result);
    expect(first.length).toBeLessThanOrEqual(80_000);
    const links = result.content.filter((c) => c.type === 'resource_link') as Array<{ uri: string }>;
    expect(links.length).toBeGreaterThan(0);
    let whole = first;
    for (const link of links) {
      const page = await api.store.read(link.uri, 'test');
      whole += page && 'text' in page ? page.text : '';
    }
    expect(JSON.parse(whole).rows).toHaveLength(5000);
  });

  it('passes JSON over 4 MiB on as paged text, never parsed: an error where an output schema wants it structured', async () => {
    // ~5 MB of rows: parsing 64 MiB of small objects had held the event loop for 17 s.
    const declared = await api.call('getBig', { count: 100_000 });
    expect(declared.isError).toBe(true);
    expect(firstText(declared)).toMatch(
      /^The response of getBig is \d\.\d MiB of JSON, more than the 4 MiB the bridge parses into structured content\. The body follows\.$/,
    );
    expect(declared.structuredContent).toBeUndefined();
    await using relaxed = await loadRelaxed();
    const paged = await relaxed.call('getBig', { count: 100_000 });
    expect(paged.isError).toBeFalsy();
    expect(paged.structuredContent).toBeUndefined();
    let whole = firstText(paged);
    for (const link of paged.content.filter((c) => c.type === 'resource_link') as Array<{ uri: string }>) {
      const page = await relaxed.store.read(link.uri, 'test');
      whole += page && 'text' in page ? page.text : '';
    }
    // The body as it came, in pages (as many as the store keeps for a caller).
    const body = JSON.stringify({
      rows: Array.from({ length: 100_000 }, (_, i) => ({
        id: i,
        name: `row ${i}`,
        note: 'lorem ipsum dolor',
      })),
    });
    expect(whole.length).toBeGreaterThan(80_000);
    expect(body.startsWith(whole)).toBe(true);
  });

  it('holds no large body whole in a result: a paged JSON body without structuredContent, a large image linked', async () => {
    await using relaxed = await loadRelaxed();
    const paged = await relaxed.call('getBig', { count: 5000 });
    expect(paged.content.some((c) => c.type === 'resource_link')).toBe(true);
    expect(paged.structuredContent).toBeUndefined();
    const image = await relaxed.call('getBinary', { kind: 'big-png' });
    expect(image.content.some((c) => c.type === 'image')).toBe(false);
    expect(firstText(image)).toContain('read it from the linked resource');
    const link = image.content.find((c) => c.type === 'resource_link') as { uri: string };
    const stored = await relaxed.store.read(link.uri, 'test');
    expect(stored && 'blob' in stored && Buffer.from(stored.blob, 'base64').length).toBe(2 * 1024 * 1024);
  });

  it('turns non-2xx into isError with status, reason, truncated body and a retry hint', async () => {
    const notFound = await api.call('getStatus', { code: 404 });
    expect(notFound.isError).toBe(true);
    expect(firstText(notFound)).toContain('HTTP 404 Not Found');
    expect(firstText(notFound)).toContain('status 404');
    expect(firstText(notFound)).toContain('will fail the same way');

    const busy = await api.call('getStatus', { code: 429 });
    expect(firstText(busy)).toContain('HTTP 429 Too Many Requests');
    expect(firstText(busy)).toMatch(/retry later.*Retry-After: 0/);

    const broken = await api.call('getStatus', { code: 500 });
    expect(firstText(broken).length).toBeLessThan(4_500);
    expect(firstText(broken)).toContain('characters in all');
  });

  it('reports a response that drifts from its declared schema, and accepts it with relaxOutput', async () => {
    const strict = await api.call('getDrift');
    expect(strict.isError).toBe(true);
    expect(firstText(strict)).toContain('--relax-output');
    await using relaxed = await loadRelaxed();
    expect(relaxed.registry.get('getDrift')?.definition.outputSchema).toBeUndefined();
    const ok = await relaxed.call('getDrift');
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toEqual({ count: 'not a number' });
  });
});

async function loadRelaxed() {
  const tools = await loadTools({
    spec: 'api-3.0.yaml',
    baseUrl: upstream.url,
    tools: 'all',
    relaxOutput: true,
  });
  return Object.assign(tools, { [Symbol.asyncDispose]: () => tools.close() });
}

describe('retries and time limits', () => {
  it('retries an idempotent call on 503 honouring Retry-After', async () => {
    const result = await api.call('getFlaky', { key: 'get-1', failures: 2 });
    expect(result.isError).toBeFalsy();
    expect(upstream.hits.get('get-1')).toBe(3);
  });

  it('gives up after --retries and says the upstream asks to retry later', async () => {
    const result = await api.call('getFlaky', { key: 'get-2', failures: 5 });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('tried 3 times');
    expect(upstream.hits.get('get-2')).toBe(3);
  });

  it('never retries a POST', async () => {
    const result = await api.call('postFlaky', { key: 'post-1', failures: 1 });
    expect(result.isError).toBe(true);
    expect(upstream.hits.get('post-1')).toBe(1);
  });

  it('times out per call (x-mcp timeoutMs) and says a retry may help', async () => {
    const started = Date.now();
    const result = await api.call('getSlow');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/did not answer within 300 ms.*retrying may help/);
  });

  it('says the connection was reset, retried, and that retrying may help', async () => {
    const before = upstream.requests.length;
    const result = await api.call('getStatus', { code: 0 });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(
      /connection to http:\/\/127\.0\.0\.1:\d+ failed \(.+\) after 3 attempts; retrying may help/,
    );
    expect(upstream.requests.length - before).toBe(3);
  });

  it('says the upstream is unreachable when nothing listens', async () => {
    const gone = await startUpstream();
    await gone.close();
    const tools = await loadTools({ spec: 'api-3.0.yaml', baseUrl: gone.url, tools: 'all', retries: 1 });
    try {
      const result = await tools.call('getItem', { itemId: '1' });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(
        /connection refused by http:\/\/127\.0\.0\.1:\d+ after 2 attempts.*retry once it is up/,
      );
    } finally {
      await tools.close();
    }
  });

  it("calls the spec's first server, its variables at their defaults, without --base-url", async () => {
    const tools = await loadTools({ spec: 'api-3.0.yaml', tools: 'all', retries: 0 });
    try {
      const result = await tools.call('getItem', { itemId: '1' });
      expect(firstText(result)).toMatch(/connection refused by http:\/\/127\.0\.0\.1:9:/);
    } finally {
      await tools.close();
    }
  });

  it('stops the upstream call when the client cancels', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await api.call('getSlow', {}, controller.signal);
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('cancelled');
  });
});
