import { writeFile } from 'node:fs/promises';
import { buildSchema, type IntrospectionObjectType, introspectionFromSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { excessiveDepth } from '../../src/index.js';
import { tempDir } from '../config/helpers.js';
import { pump } from '../helpers/flood.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { type RawUpstream, startRawUpstream } from './helpers/raw-upstream.js';
import { runBridge } from './helpers/run-bridge.js';

// What an endpoint can send to make a `bridge graphql` process hold, print or compute too much:
// each answer comes from a real endpoint on 127.0.0.1, to a real bridge process, and each test
// asserts on what the client received and that the bridge still answers afterwards.
const FIELDS = ['small', 'stall', 'hang', 'titles', 'errors', 'longError', 'deep', 'deepPath', 'deepish'];
const SDL = `type Query { ${FIELDS.map((field) => `${field}: String`).join(' ')} }`;
// Both answers stay under the 4 MiB the bridge parses (larger ones are passed on unparsed).
const ERRORS = 50_000;
const LONG_MESSAGE = 3 * 1024 * 1024;
const INTROSPECTION_MESSAGE = 8 * 1024 * 1024;
/** An HTML page of one `<title` after another, none closed: ~1 MB. */
const TITLES = `<html><title${'<title'.repeat(170_000)}`;

function nested(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

let upstream: RawUpstream;
let dir: Awaited<ReturnType<typeof tempDir>>;
let bridge: HttpBridge;

beforeAll(async () => {
  upstream = await startRawUpstream((query, res) => {
    const field = /\{\s*(\w+)/.exec(query)?.[1];
    const json = (body: string) => void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (field === 'small') return json('{"data":{"small":"ok"}}');
    if (field === 'titles') return void res.writeHead(502, { 'content-type': 'text/html' }).end(TITLES);
    if (field === 'errors') {
      const errors = Array.from({ length: ERRORS }, (_, i) => ({ message: `error ${i}`, path: ['errors'] }));
      return json(JSON.stringify({ data: null, errors }));
    }
    if (field === 'longError')
      return json(JSON.stringify({ data: null, errors: [{ message: 'M'.repeat(LONG_MESSAGE) }] }));
    if (field === 'deep') return json(`{"data":{"deep":${nested(100_000)}}}`);
    if (field === 'deepish') return json(`{"data":{"deepish":${nested(1_000)}}}`);
    if (field === 'deepPath')
      return json(`{"data":null,"errors":[{"message":"x","path":${nested(100_000)}}]}`);
    // Headers and the start of a body, then nothing more; or nothing at all.
    if (field === 'stall') res.writeHead(200, { 'content-type': 'application/json' }).write('{"data":');
  });
  dir = await tempDir();
  await writeFile(dir.file('schema.graphql'), SDL);
  bridge = await startHttpBridge({
    script: BRIDGE_BIN,
    args: ['graphql', upstream.url, '--schema', dir.file('schema.graphql'), '--timeout', '2000'],
  });
});
afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
  await upstream?.[Symbol.asyncDispose]();
  await dir?.[Symbol.asyncDispose]();
});

/** A tools/call that must be answered within `ms`, as a client that gives up would see it. */
function call(name: string, ms = 10_000) {
  return modernRequest(
    bridge.url,
    'tools/call',
    { name, arguments: {} },
    { signal: AbortSignal.timeout(ms) },
  );
}

async function expectServing(): Promise<void> {
  const small = await call('small', 5_000);
  expect(small.json?.result?.content?.[0]?.text).toBe('{"small":"ok"}');
}

type Block = { type: string; text?: string; uri?: string };

describe('hostile answers to calls', () => {
  it('describes an HTML page of unclosed <title tags in linear time, serving others meanwhile', async () => {
    // Both at once: while the bridge computes one answer, the other must still be served.
    const [titles] = await Promise.all([call('titles'), expectServing()]);
    const text = titles.json?.result?.content?.[0]?.text;
    expect(text).toBe(
      `titles failed: the GraphQL endpoint ${upstream.url} answered HTTP 502 with an HTML page, not a GraphQL response`,
    );
  });

  it('lists the first of 50,000 errors in a small answer; all of them are paged, not repeated', async () => {
    const reply = await call('errors');
    // The whole JSON-RPC answer, as the client received it.
    expect(reply.text.length, reply.text.slice(0, 500)).toBeLessThan(64 * 1024);
    const result = reply.json?.result;
    expect(result?.isError).toBe(true);
    expect(result?.structuredContent).toBeUndefined();
    const content = (result?.content ?? []) as Block[];
    expect(content[0]?.text).toContain(`the GraphQL server reported ${ERRORS} error(s)`);
    expect(content[0]?.text).toContain('- error 19 (at errors)');
    expect(content[0]?.text).not.toContain('- error 20 (at errors)');
    expect(content[0]?.text).toContain(`${ERRORS - 20} more`);
    const link = content.find((block) => block.type === 'resource_link');
    const uri = String(link?.uri);
    const page = await modernRequest(bridge.url, 'resources/read', { uri }, { headers: { 'mcp-name': uri } });
    const pageText = (page.json?.result?.contents as Array<{ text?: string }> | undefined)?.[0]?.text;
    expect(pageText).toMatch(/"message":"error \d+"/);
  });

  it('cuts an error message of megabytes in the answer, keeping the whole in its pages', async () => {
    const reply = await call('longError');
    expect(reply.text.length, reply.text.slice(0, 500)).toBeLessThan(64 * 1024);
    const result = reply.json?.result;
    expect(result?.isError).toBe(true);
    expect(result?.structuredContent).toBeUndefined();
    const content = (result?.content ?? []) as Block[];
    expect(content[0]?.text).toContain(`MMMM… [${LONG_MESSAGE} characters in all]`);
    expect(content.some((block) => block.type === 'resource_link')).toBe(true);
  });

  it('refuses an answer nested deeper than 128 levels, naming the limit, and serves the next call', async () => {
    for (const name of ['deep', 'deepPath', 'deepish']) {
      const result = (await call(name)).json?.result;
      expect(result?.isError, name).toBe(true);
      expect(result?.structuredContent, name).toBeUndefined();
      expect(result?.content?.[0]?.text, name).toBe(
        `${name} failed: the GraphQL endpoint ${upstream.url} answered JSON nested deeper than 128 levels of arrays and objects, more than the bridge passes on; select fewer nested fields`,
      );
    }
    await expectServing();
    expect(bridge.stderr()).not.toContain('Maximum call stack size exceeded');
  });

  it('gives up after --timeout on an answer that stalls or never starts, serving others meanwhile', async () => {
    const started = Date.now();
    let settled = false;
    const stalled = Promise.all([call('stall'), call('hang')]).finally(() => {
      settled = true;
    });
    // Answered while both still wait for their timeout: in order, not by a clock.
    const served = expectServing().then(() => settled);
    const [replies, stalledFirst] = await Promise.all([stalled, served]);
    expect(stalledFirst).toBe(false);
    for (const [index, reply] of replies.entries()) {
      const name = ['stall', 'hang'][index];
      expect(reply.json?.result?.isError, name).toBe(true);
      expect(reply.json?.result?.content?.[0]?.text, name).toBe(
        `${name} failed: the GraphQL endpoint ${upstream.url} did not answer within 2000 ms (raise --timeout): The operation was aborted due to timeout`,
      );
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    await expectServing();
  });
});

describe('hostile answers to introspection at start-up', () => {
  it('stops reading an endless introspection answer past 64 MiB and exits naming the limit', async () => {
    let written: Promise<number> = Promise.resolve(0);
    const flood = 256 * 1024 * 1024;
    await using endpoint = await startRawUpstream((_query, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      written = pump(res, '{"data":{"__schema":{"description":"', Buffer.alloc(1 << 20, 'A'), flood, '"}}}');
    });
    const { code, stderr } = await runBridge([endpoint.url]);
    expect(code).toBe(1);
    expect(stderr).toContain(`the GraphQL endpoint ${endpoint.url} answered with more than 64 MiB`);
    // Hung up on: what was written past the limit is what the sockets' buffers took.
    expect(await written).toBeLessThan(80 * 1024 * 1024);
  });

  it('gives up on introspection that never answers after --timeout', async () => {
    await using endpoint = await startRawUpstream(() => {});
    // Without the timeout it would be killed after 20 s (code null), not exit 1.
    const { code, stderr } = await runBridge([endpoint.url, '--timeout', '1000']);
    expect(code).toBe(1);
    expect(stderr).toContain(`the GraphQL endpoint ${endpoint.url} did not answer within 1000 ms`);
  });

  it('quotes only the start of an introspection refusal of many long errors', async () => {
    await using endpoint = await startRawUpstream((_query, res) => {
      // Over the 4 MiB a call's answer is parsed up to: introspection is parsed whatever its size.
      const errors = [
        { message: 'E'.repeat(INTROSPECTION_MESSAGE) },
        ...Array.from({ length: ERRORS }, () => ({ message: 'no' })),
      ];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ errors }));
    });
    const { code, stderr } = await runBridge([endpoint.url]);
    expect(code).toBe(1);
    expect(stderr.length, stderr.slice(0, 500)).toBeLessThan(4 * 1024);
    expect(stderr).toContain(`the GraphQL endpoint ${endpoint.url} did not answer introspection (EEEE`);
    expect(stderr).toContain(`[${INTROSPECTION_MESSAGE} characters in all]`);
    expect(stderr).toContain(`${ERRORS - 4} more`);
  });

  it('describes an HTML page of unclosed <title tags at start-up in linear time', async () => {
    await using endpoint = await startRawUpstream((_query, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(TITLES);
    });
    // Quadratic, it took minutes: killed after 20 s (code null), not exit 1.
    const { code, stderr } = await runBridge([endpoint.url]);
    expect(code).toBe(1);
    expect(stderr).toContain('answered HTTP 200 with an HTML page, not a GraphQL response');
  });
});

describe('a hostile schema', () => {
  const words = 'word '.repeat(200_000);
  let endpoint: RawUpstream;
  let listing: HttpBridge;
  beforeAll(async () => {
    const sdl = `type Query {
      """${words}"""
      long("""${words}""" arg: String, filter: Filter): String @deprecated(reason: "${words}")
    }
    """${words}"""
    input Filter { """${words}""" name: String }`;
    const data = introspectionFromSchema(buildSchema(sdl));
    endpoint = await startRawUpstream((_query, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    });
    listing = await startHttpBridge({ script: BRIDGE_BIN, args: ['graphql', endpoint.url, '--generic'] });
  });
  afterAll(async () => {
    await listing?.[Symbol.asyncDispose]();
    await endpoint?.[Symbol.asyncDispose]();
  });

  it('keeps descriptions of megabytes out of tools/list, within the budgets of OpenAPI tools', async () => {
    const list = await modernRequest(listing.url, 'tools/list', {});
    // Five texts of 1 MB each (descriptions, a deprecation reason) made a list of megabytes.
    expect(list.text.length, list.text.slice(0, 500)).toBeLessThan(8 * 1024);
    const tools = (list.json?.result?.tools ?? []) as Array<{ name: string; description: string }>;
    const tool = tools.find((candidate) => candidate.name === 'long');
    expect(tool?.description).toMatch(/^word word .*\.\.\. Deprecated: word .*\.\.\.\. Returns String\.$/);
    expect(tool?.description.length).toBeLessThanOrEqual(600);
  });

  it('pages the SDL graphql_schema gives of a type described in megabytes', async () => {
    const reply = await modernRequest(listing.url, 'tools/call', {
      name: 'graphql_schema',
      arguments: { type: 'Query' },
    });
    expect(reply.text.length, reply.text.slice(0, 500)).toBeLessThan(64 * 1024);
    const content = (reply.json?.result?.content ?? []) as Block[];
    expect(content[0]?.text).toMatch(/^type Query \{\n {2}"""\n {2}word word/);
    expect(content[1]?.text).toMatch(/\[graphql_schema result continues: page 1 of \d+ shown/);
    expect(content.some((block) => block.type === 'resource_link')).toBe(true);
  });
});

describe('a hostile schema of long names', () => {
  const long = 'x'.repeat(300_000);
  /** How the log quotes a name that is cut: its first 100 characters, then an ellipsis. */
  const cut = (name: string) => `${name.slice(0, 100)}…`;

  function serve(data: unknown) {
    return startRawUpstream((_query, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    });
  }

  it('skips each root field needing a name over 256 characters, with one short warning each', async () => {
    const sdl = `schema { query: Query mutation: M${long} }
      type M${long} { doIt: String }
      type Query {
        small: String
        f${long}: String
        arg(a${long}: String): String
        input(filter: Filter): String
        color(c: Color): String
        typed: T${long}
        old(c: Old): String
        obj: Obj
      }
      input Filter { n${long}: String }
      enum Color { RED V${long} }
      enum Old { RED V${long} @deprecated }
      type T${long} { id: ID }
      type Obj { o${long}: String }`;
    await using endpoint = await serve(introspectionFromSchema(buildSchema(sdl)));
    await using served = await startHttpBridge({ script: BRIDGE_BIN, args: ['graphql', endpoint.url] });
    const list = await modernRequest(served.url, 'tools/list', {});
    // Each of these names made the listing 300 KB longer, or twice that.
    expect(list.text.length, list.text.slice(0, 500)).toBeLessThan(8 * 1024);
    type Listed = { name: string; description: string; inputSchema: { properties: Record<string, object> } };
    const tools = (list.json?.result?.tools ?? []) as Listed[];
    expect(tools.map((tool) => tool.name).sort()).toEqual(['obj', 'old', 'small']);
    // A deprecated value is not offered anyway; a field too long to be the example is not shown.
    expect(tools.find((tool) => tool.name === 'old')?.inputSchema.properties.c).toEqual({
      type: 'string',
      enum: ['RED'],
    });
    expect(tools.find((tool) => tool.name === 'obj')?.description).toBe('The obj query field. Returns Obj.');
    const stderr = served.stderr();
    expect(stderr.length, stderr.slice(0, 500)).toBeLessThan(4 * 1024);
    const over = (what: string, name: string) =>
      `the ${what} "${cut(name)}" is named in ${name.length} characters, more than the 256 the bridge serves`;
    for (const warning of [
      `the mutation root "${cut(`M${long}`)}" is named in 300001 characters, more than the 256 the bridge serves: its fields are skipped`,
      `query field ${cut(`f${long}`)} skipped: ${over('field', `f${long}`)}`,
      `query field arg skipped: ${over('argument', `a${long}`)}`,
      `query field input skipped: ${over('field of Filter', `n${long}`)}`,
      `query field color skipped: ${over('value of Color', `V${long}`)}`,
      `query field typed skipped: ${over('type', `T${long}`)}`,
    ])
      expect(stderr).toContain(warning);
    expect(stderr.match(/skipped/g)).toHaveLength(6);
  });

  it('cuts long names in the start-up log: a guessed query root, a schema that cannot be built', async () => {
    const sdl = `schema { query: Query${long} } type Query${long} { small: String }`;
    const { __schema } = introspectionFromSchema(buildSchema(sdl));
    const guessed = { __schema: { ...__schema, queryType: null } };
    await using guessing = await serve(guessed);
    await using served = await startHttpBridge({ script: BRIDGE_BIN, args: ['graphql', guessing.url] });
    const stderr = served.stderr();
    expect(stderr.length, stderr.slice(0, 500)).toBeLessThan(4 * 1024);
    expect(stderr).toContain(`names no query type; using "${cut(`Query${long}`)}"`);
    // A field typed by a type the introspection does not define: graphql-js names it in its error.
    const broken = JSON.parse(
      JSON.stringify(introspectionFromSchema(buildSchema('type Query { small: String }'))),
    );
    broken.__schema.types.find((type: { name: string }) => type.name === 'Query').fields[0].type = {
      kind: 'OBJECT',
      name: `U${long}`,
      ofType: null,
    };
    await using refusing = await serve(broken);
    const { code, stderr: refused } = await runBridge([refusing.url]);
    expect(code).toBe(2);
    expect(refused.length, refused.slice(0, 500)).toBeLessThan(4 * 1024);
    expect(refused).toContain(
      'does not describe a usable schema: Invalid or incomplete schema, unknown type: Uxxx',
    );
  });
});

describe('a hostile schema of deep defaults', () => {
  it('lists an argument whose default nests 1,200 levels without it, within 128 levels', async () => {
    // A custom scalar's default is any literal: as deep as this, Python's json fails on the list.
    const sdl = 'scalar JSON type Query { small: String deep(x: JSON, y: Int = 3): String }';
    const data = introspectionFromSchema(buildSchema(sdl));
    const query = data.__schema.types.find((type) => type.name === 'Query') as IntrospectionObjectType;
    const x = query.fields.find((field) => field.name === 'deep')?.args[0] as { defaultValue: string };
    x.defaultValue = `${'['.repeat(1_200)}${']'.repeat(1_200)}`;
    await using endpoint = await startRawUpstream((_query, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    });
    await using served = await startHttpBridge({ script: BRIDGE_BIN, args: ['graphql', endpoint.url] });
    const list = await modernRequest(served.url, 'tools/list', {});
    expect(excessiveDepth(list.text)).toBeUndefined();
    type Listed = { name: string; inputSchema: { properties: Record<string, { default?: unknown }> } };
    const tools = (list.json?.result?.tools ?? []) as Listed[];
    const properties = tools.find((tool) => tool.name === 'deep')?.inputSchema.properties;
    expect(properties?.x).toBeDefined();
    expect(properties?.x).not.toHaveProperty('default');
    expect(properties?.y?.default).toBe(3);
  });
});

describe('hostile documents from a client', () => {
  let served: HttpBridge;
  beforeAll(async () => {
    await writeFile(dir.file('chain.graphql'), 'type Query { small: String a: A } type A { a: A b: String }');
    served = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['graphql', upstream.url, '--schema', dir.file('chain.graphql'), '--generic'],
    });
  });
  afterAll(async () => {
    await served?.[Symbol.asyncDispose]();
  });

  async function query(document: string, name = 'graphql_query', key = 'query') {
    const reply = await modernRequest(served.url, 'tools/call', { name, arguments: { [key]: document } });
    return reply.json?.result;
  }

  it('refuses a chain of 20,000 fragments, a selection 5,000 deep and a million fields before graphql-js reads them', async () => {
    const fragments = Array.from(
      { length: 20_000 },
      (_, i) => `fragment F${i} on A { ${i < 19_999 ? `...F${i + 1}` : 'b'} }`,
    );
    const chain = await query(`query { a { ...F0 } } ${fragments.join(' ')}`);
    expect(chain?.isError).toBe(true);
    expect(chain?.content?.[0]?.text).toBe(
      'graphql_query refused the request:\n- the document defines more than 1000 fragments, more than the bridge checks; inline some of them',
    );
    const deep = await query(`{ ${'a { '.repeat(5_000)} b ${'} '.repeat(5_000)} }`);
    expect(deep?.content?.[0]?.text).toBe(
      'graphql_query refused the request:\n- the document nests selection sets, lists or objects deeper than 128 levels, more than the bridge checks; select fewer nested fields',
    );
    const select = await query(`{ ${'... on A { '.repeat(5_000)} b ${'} '.repeat(5_000)} }`, 'a', 'select');
    expect(select?.isError).toBe(true);
    expect(select?.content?.[0]?.text).toContain('the selection nests selection sets');
    // Wide rather than deep: a million fields took graphql-js ~2 s, every other call waiting.
    const wide = await query(`{ ${'b '.repeat(1_000_000)}}`);
    expect(wide?.content?.[0]?.text).toBe(
      'graphql_query refused the request:\n- the document holds more than 50,000 tokens, more than the bridge checks; select fewer fields',
    );
    // Within the bounds, a chain of fragments as deep as real ones is checked and sent.
    const fine = Array.from(
      { length: 50 },
      (_, i) => `fragment G${i} on Query { ${i < 49 ? `...G${i + 1}` : 'small'} }`,
    );
    const ok = await query(`{ ...G0 } ${fine.join(' ')}`);
    expect(ok?.content?.[0]?.text).toBe('{"small":"ok"}');
    expect(served.stderr()).not.toContain('Maximum call stack size exceeded');
    expect(served.stderr()).not.toContain(' error: ');
  });
});

describe('a hostile schema of many fields', () => {
  it('makes 10,000 root fields into tools at most, and says how many it left out', async () => {
    // ~5 kB a tool: the 300,000 fields 64 MiB of introspection can name would exhaust memory.
    const fields = Array.from({ length: 10_050 }, (_, at) => `f${at}(a: Int): Int`).join('\n');
    const data = introspectionFromSchema(buildSchema(`type Query {\n${fields}\n}\ntype Mutation { m: Int }`));
    await using endpoint = await startRawUpstream((_query, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    });
    await using bridge = await startHttpBridge({ script: BRIDGE_BIN, args: ['graphql', endpoint.url] });
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await modernRequest(bridge.url, 'tools/list', cursor ? { cursor } : {});
      const result = page.json?.result as { tools: Array<{ name: string }>; nextCursor?: string };
      names.push(...result.tools.map((tool) => tool.name));
      cursor = result.nextCursor;
    } while (cursor);
    expect(names).toHaveLength(10_000);
    expect(names).toContain('f9999');
    expect(names).not.toContain('f10000');
    expect(names).not.toContain('m');
    expect(bridge.stderr()).toContain(
      "of the query root's 10,050 fields, the first 10,000 are served; write the operations you need with --operations DIR",
    );
    expect(bridge.stderr()).toContain("of the mutation root's 1 field, the first 0 are served");
  });
});
