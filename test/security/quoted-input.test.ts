// A request may carry megabytes (4 MiB over HTTP, 10 MiB a line over stdio). What the bridge
// answers about a value it cannot use (an unknown tool, prompt, resource or task, a cursor it did
// not issue, an argument the schema refuses, a CLI cwd, a GraphQL document) quotes at most its
// start, and what it logs of the SDK's reports keeps at most a thousand characters: the answer and
// the log stay small whatever came in. Real bridge processes, on stdio and Streamable HTTP in both
// eras, asserting on the bytes of each answer as received and on the lines of stderr.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, tempDir } from '../cli/helpers.js';
import { REDIS_SERVER, startRedis, type TestRedis } from '../helpers/deployment.js';
import { LineClient } from '../helpers/line-client.js';
import { envelope, modernRequest } from '../helpers/modern-request.js';
import { RawSession, SESSION_VERSION } from '../helpers/raw-session.js';
import { BRIDGE_BIN, distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';

const SERVER = distPath('test/servers/conformance-server.js');
const MIB = 1024 * 1024;
// The start of every value sent, as an answer quotes it: 100 characters and a marker.
const QUOTED = `"${'A'.repeat(100)}…"`;
// What an answer about one value may take, all told (the JSON-RPC frame, an SSE event around it).
const SMALL = 1_000;
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** One answer as it arrived: its size in bytes, and the JSON-RPC message in it. */
interface Answer {
  bytes: number;
  error?: { code: number; message: string; data?: unknown };
  result?: Record<string, unknown>;
}

/** A way to reach the server under test, in one era. */
interface Wire {
  name: string;
  era: 'legacy' | 'modern';
  /**
   * A value of about `bytes` to send. Over 2026-07-28 HTTP a tool or prompt name, a URI and a task
   * id travel twice, in the body and in the `Mcp-Name` header, which Node caps at 16 KiB with the
   * other headers: there the value is 8,000 characters.
   */
  value(bytes: number, inHeader?: boolean): string;
  send(method: string, params: Record<string, unknown>, capabilities?: object): Promise<Answer>;
  close(): Promise<void>;
}

function parsed(text: string): Answer {
  const data = text.startsWith('{') ? text : [...text.matchAll(/^data: (.+)$/gm)].at(-1)?.[1];
  return { bytes: Buffer.byteLength(text), ...(data ? JSON.parse(data) : {}) };
}

const huge = (bytes: number) => 'A'.repeat(bytes);

async function stdioWire(era: Wire['era']): Promise<Wire> {
  const client = new LineClient([], {}, SERVER);
  let id = 0;
  if (era === 'legacy') {
    await client.initialize(++id, SESSION_VERSION, 'quoted-input');
  }
  return {
    name: `stdio, ${era}`,
    era,
    value: huge,
    async send(method, params, capabilities = {}) {
      const meta = era === 'modern' ? { _meta: envelope(capabilities) } : {};
      return parsed(await client.line(++id, method, { ...params, ...meta }));
    },
    close: () => client.close().then(() => {}),
  };
}

async function httpWire(bridge: HttpBridge, era: Wire['era']): Promise<Wire> {
  let id = 0;
  if (era === 'legacy') {
    const session = new RawSession(bridge.url);
    await session.open({});
    return {
      name: 'http, legacy',
      era,
      value: huge,
      async send(method, params) {
        const response = await session.post({ jsonrpc: '2.0', id: ++id, method, params });
        return parsed(await response.text());
      },
      close: () => session.close(),
    };
  }
  return {
    name: 'http, modern',
    era,
    value: (bytes, inHeader) => huge(inHeader ? Math.min(bytes, 8_000) : bytes),
    async send(method, params, capabilities = {}) {
      // The header the body's name, URI or task id must match (SEP-2243).
      const named = params.name ?? params.uri ?? params.taskId;
      const headers = typeof named === 'string' ? { 'mcp-name': named } : undefined;
      const reply = await modernRequest(bridge.url, method, params, {
        id: ++id,
        capabilities,
        ...(headers ? { headers } : {}),
      });
      return parsed(reply.text);
    },
    close: async () => {},
  };
}

/** Expects a refusal of `code` quoting the value's start, and no more of it. */
function expectQuoted(answer: Answer, code = -32602): void {
  expect(answer.bytes).toBeLessThan(SMALL);
  expect(answer.error?.code).toBe(code);
  expect(answer.error?.message).toContain(QUOTED);
}

let http: HttpBridge;
const wires: Wire[] = [];
beforeAll(async () => {
  http = await startHttpBridge({ script: SERVER, args: [] });
  wires.push(
    await stdioWire('legacy'),
    await stdioWire('modern'),
    await httpWire(http, 'legacy'),
    await httpWire(http, 'modern'),
  );
});
afterAll(async () => {
  await Promise.allSettled(wires.map((wire) => wire.close()));
  await http?.[Symbol.asyncDispose]();
});

// Resolved at run time: describe.each needs the list when the file is collected.
const WIRES = ['stdio, legacy', 'stdio, modern', 'http, legacy', 'http, modern'];
const wire = (name: string) => wires.find((candidate) => candidate.name === name) as Wire;

describe.each(WIRES)('%s', (name) => {
  const modern = name.endsWith('modern');

  it('tools/call: an unknown tool', async () => {
    const { value, send } = wire(name);
    expectQuoted(await send('tools/call', { name: value(MIB, true), arguments: {} }));
  });

  it('prompts/get: an unknown prompt', async () => {
    const { value, send } = wire(name);
    expectQuoted(await send('prompts/get', { name: value(MIB, true) }));
  });

  it('completion/complete: an unknown prompt or resource template', async () => {
    const { value, send } = wire(name);
    const argument = { name: 'id', value: '' };
    expectQuoted(
      await send('completion/complete', { ref: { type: 'ref/prompt', name: value(MIB) }, argument }),
    );
    expectQuoted(
      await send('completion/complete', { ref: { type: 'ref/resource', uri: value(MIB) }, argument }),
    );
  });

  it('resources/read: an unknown URI', async () => {
    const { value, send } = wire(name);
    const answer = await send('resources/read', { uri: value(MIB, true) });
    // `data.uri` names the URI, up to 2,048 characters. A megabyte is more than the SDK's template
    // matcher takes: it matches no template (rather than failing the read as an internal error).
    expect(answer.bytes).toBeLessThan(SMALL + 2_048);
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toBe(`Resource not found: ${'A'.repeat(100)}…`);
    expect(answer.error?.data).toEqual({ uri: `${'A'.repeat(2_048)}…` });
  });

  it.skipIf(modern)('resources/subscribe: an unknown URI', async () => {
    const { value, send } = wire(name);
    const answer = await send('resources/subscribe', { uri: value(MIB) });
    expect(answer.bytes).toBeLessThan(SMALL + 2_048);
    // Its length is refused before it is looked up (see resource-subscriptions.test.ts).
    expect(answer.error?.message).toBe(
      `Cannot subscribe to "${'A'.repeat(100)}…": a subscribed URI is at most 2048 characters (this one has ${MIB}).`,
    );
  });

  it('tools/call: arguments the schema refuses, by a long name or by the thousand', async () => {
    const { value, send } = wire(name);
    const call = (args: Record<string, unknown>) =>
      send('tools/call', { name: 'json_schema_2020_12_tool', arguments: { email: 'a@b.c', ...args } });
    const named = await call({ [value(MIB)]: 1 });
    expect(named.bytes).toBeLessThan(SMALL);
    expect(named.result?.isError).toBe(true);
    expect(JSON.stringify(named.result?.content)).toContain(
      `/${'A'.repeat(99)}…: is not an allowed property`,
    );

    const many = await call(Object.fromEntries(Array.from({ length: 50_000 }, (_, at) => [`k${at}`, at])));
    expect(many.bytes).toBeLessThan(2 * SMALL);
    const text = JSON.stringify(many.result?.content);
    expect(text).toContain('- /k19: is not an allowed property');
    expect(text).not.toContain('/k20:');
    expect(text).toContain('- and 49980 more, not listed');
  });

  it.skipIf(!modern)('tools/call: an answer to a question that is no answer', async () => {
    const { value, send } = wire(name);
    const ELICITATION = { elicitation: { form: {} } };
    const params = { name: 'test_input_required_result_elicitation', arguments: {} };
    const round = await send('tools/call', params, ELICITATION);
    expect(round.result?.resultType).toBe('input_required');
    const answer = await send(
      'tools/call',
      {
        ...params,
        inputResponses: { user_name: { action: value(MIB) } },
        requestState: round.result?.requestState,
      },
      ELICITATION,
    );
    expectQuoted(answer);
  });

  it('tasks/get and tasks/cancel: an unknown task id', async () => {
    const { value, send } = wire(name);
    const taskId = value(MIB, true);
    expectQuoted(await send('tasks/get', { taskId }, TASKS));
    expectQuoted(await send('tasks/cancel', { taskId }, TASKS));
  });

  it.skipIf(modern)('tasks/result: an unknown task id', async () => {
    const { value, send } = wire(name);
    expectQuoted(await send('tasks/result', { taskId: value(MIB) }));
  });

  it.skipIf(modern)('tools/call as a task: a ttl that is no number', async () => {
    const { value, send } = wire(name);
    const task = { ttl: value(MIB) };
    expectQuoted(await send('tools/call', { name: 'slow_compute', arguments: { seconds: 0 }, task }));
  });

  it.skipIf(modern)('tasks/list: a cursor it did not issue', async () => {
    const { value, send } = wire(name);
    expectQuoted(await send('tasks/list', { cursor: value(MIB) }));
  });
});

describe('http, modern: Mcp-Param-* headers (SEP-2243)', () => {
  it('a header that disagrees with an argument of a megabyte', async () => {
    const reply = await modernRequest(
      http.url,
      'tools/call',
      { name: 'test_custom_header', arguments: { region: huge(MIB) } },
      { headers: { 'mcp-param-region': huge(8_000) } },
    );
    expect(reply.status).toBe(400);
    expectQuoted(parsed(reply.text), -32020);
    expect(reply.json?.error?.message).toMatch(
      /\(".{101}"\) does not match region in the body \(".{101}"\)$/,
    );
  });
});

describe('bridge cli git, over stdio', () => {
  const work = tempDir();
  const cache = tempDir('bridge-cli-cache-');
  makeRepo(work.path, 1);
  let client: LineClient;
  beforeAll(async () => {
    client = new LineClient(['cli', 'git', '--allow', 'status', '--root', work.path, '--no-watch'], {
      BRIDGE_CACHE_DIR: cache.path,
    });
    await client.initialize(0, SESSION_VERSION, 'quoted-input');
  });
  afterAll(async () => {
    await client?.close();
    work[Symbol.dispose]();
    cache[Symbol.dispose]();
  });

  const text = (answer: Answer) => JSON.stringify(answer.result?.content);

  it('a subcommand the policy does not offer', async () => {
    const answer = parsed(await client.line(1, 'tools/call', { name: `git_${huge(MIB)}`, arguments: {} }));
    expect(answer.bytes).toBeLessThan(SMALL);
    expect(text(answer)).toContain(`\\"git_${'A'.repeat(96)}…\\" is not offered`);
  });

  it('a working directory that does not exist', async () => {
    const answer = parsed(
      await client.line(2, 'tools/call', { name: 'git_status', arguments: { cwd: huge(MIB) } }),
    );
    expect(answer.bytes).toBeLessThan(SMALL);
    expect(answer.result?.isError).toBe(true);
    expect(text(answer)).toContain(
      `cwd \\"${'A'.repeat(100)}…\\" does not exist (resolved to \\"${work.path}/`,
    );
  });
});

describe('bridge graphql, over stdio', () => {
  const schema = fileURLToPath(new URL('../../fixtures/graphql/shop.graphql', import.meta.url));
  let client: LineClient;
  let id = 0;
  beforeAll(async () => {
    client = new LineClient(['graphql', 'http://127.0.0.1:9/graphql', '--schema', schema, '--generic']);
    await client.initialize(++id, SESSION_VERSION, 'quoted-input');
  });
  afterAll(async () => {
    await client?.close();
  });

  /** The refusal of a call, which sends nothing upstream (none listens there). */
  async function refused(name: string, args: Record<string, unknown>): Promise<string> {
    const answer = parsed(await client.line(++id, 'tools/call', { name, arguments: args }));
    expect(answer.bytes).toBeLessThan(2 * SMALL);
    expect(answer.result?.isError).toBe(true);
    return JSON.stringify(answer.result?.content);
  }

  it('a document naming a field, an argument or a variable of a megabyte', async () => {
    for (const query of [
      `{ ${huge(MIB)} }`,
      `{ serverTime(${huge(MIB)}: 1) }`,
      `query ($${huge(MIB)}: Int) { serverTime }`,
    ]) {
      expect(await refused('graphql_query', { query })).toContain(`AAAA…`);
    }
  });

  it('an operationName that names no operation', async () => {
    const text = await refused('graphql_query', {
      query: 'query a { serverTime }',
      operationName: huge(MIB),
    });
    expect(text).toContain(`the document has no operation named \\${QUOTED.slice(0, -1)}\\"`);
  });

  it('a variable whose value GraphQL refuses, quoted twice in its message', async () => {
    const query = 'query ($n: Int!) { catalogue(size: $n) }';
    expect(await refused('graphql_query', { query, variables: { n: huge(MIB) } })).toContain(
      'got invalid value',
    );
  });

  it('a selection that selects what the type does not have', async () => {
    const text = await refused('product', { id: 'p1', select: `{ ${huge(MIB)} }` });
    expect(text).toContain(`the select \\"{ ${'A'.repeat(98)}…\\" or the arguments`);
  });

  it('graphql_schema: a type it does not have, a word no name contains', async () => {
    expect(await refused('graphql_schema', { type: huge(MIB) })).toContain(
      `no type named \\${QUOTED.slice(0, -1)}\\"`,
    );
    const answer = parsed(
      await client.line(++id, 'tools/call', { name: 'graphql_schema', arguments: { search: huge(MIB) } }),
    );
    expect(answer.bytes).toBeLessThan(SMALL);
    expect(JSON.stringify(answer.result?.content)).toContain(
      `No type or field name contains \\${QUOTED.slice(0, -1)}\\".`,
    );
  });

  it('a document that fails validation a thousand times over', async () => {
    const query = `{ ${Array.from({ length: 1_000 }, (_, at) => `f${at}`).join(' ')} }`;
    const text = await refused('graphql_query', { query });
    expect(text).toContain('Cannot query field \\"f19\\"');
    expect(text).not.toContain('\\"f20\\"');
    expect(text).toContain('- and 81 more');
  });
});

describe('what the SDK reports about a request, in the debug log', () => {
  const spec = fileURLToPath(new URL('../../fixtures/openapi/api-3.0.yaml', import.meta.url));
  const args = ['openapi', spec, '--base-url', 'http://127.0.0.1:9', '--no-cache', '--log-level', 'debug'];
  // A newline in what a client sends must not start a line either (the logger escapes it).
  const forged = `\nbridge info: forged${huge(MIB)}`;
  const LOG_LINE = /^bridge (debug|info|warning|error): /;

  /** Every line is one of the bridge's own, and none keeps more than a thousand characters of a report. */
  function expectBoundedLog(stderr: string, report: string): void {
    const lines = stderr.split('\n').filter((line) => line !== '');
    const reported = lines.filter((line) => line.includes(report));
    expect(reported).toHaveLength(1);
    for (const line of lines) {
      expect(line).toMatch(LOG_LINE);
      expect(line.length).toBeLessThan(1_100);
    }
    expect(reported[0]).toContain('\\nbridge info: forged');
    expect(Buffer.byteLength(stderr)).toBeLessThan(4 * SMALL);
  }

  it('http: a 2026-07-28 call whose Mcp-Name header does not repeat its params.name', async () => {
    await using bridge = await startHttpBridge({ script: BRIDGE_BIN, args });
    const reply = await modernRequest(
      bridge.url,
      'tools/call',
      { name: forged, arguments: {} },
      {
        headers: { 'mcp-name': 'x' },
      },
    );
    // The SDK's answer quoted the name whole, twice: cut where it leaves the bridge
    // (clip-error-answer.ts): its message to 1,000 characters, each string of its data to 2,048.
    expect(reply.status).toBe(400);
    expect(Buffer.byteLength(reply.text)).toBeLessThan(8 * SMALL);
    expect(reply.json?.error?.code).toBe(-32020);
    await sleep(100);
    expectBoundedLog(bridge.stderr(), 'Rejected inbound request');
  });

  it('stdio: an opening notification claiming a protocol revision nobody supports', async () => {
    const child = spawn(process.execPath, [BRIDGE_BIN, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    try {
      const meta = { ...envelope(), 'io.modelcontextprotocol/protocolVersion': forged };
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: meta } })}\n`,
      );
      for (let waited = 0; !stderr.includes('Discarded a notification') && waited < 10_000; waited += 50) {
        await sleep(50);
      }
      await sleep(100);
      expectBoundedLog(stderr, 'Discarded a notification');
    } finally {
      child.kill();
    }
  });
});

describe.skipIf(!REDIS_SERVER)('tasks in Redis (--store)', () => {
  let redis: TestRedis;
  let shared: HttpBridge;
  beforeAll(async () => {
    redis = await startRedis();
    shared = await startHttpBridge({ script: SERVER, args: ['--store', redis.url] });
  });
  afterAll(async () => {
    await shared?.[Symbol.asyncDispose]();
    await redis?.[Symbol.asyncDispose]();
  });

  it('tasks/list: a cursor it did not issue', async () => {
    const legacy = await httpWire(shared, 'legacy');
    try {
      expectQuoted(await legacy.send('tasks/list', { cursor: huge(MIB) }));
    } finally {
      await legacy.close();
    }
  });
});
