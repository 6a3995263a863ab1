// The direct lane for plain 2026-07-28 `tools/call` requests (src/server/direct-call.ts) must answer
// exactly what the SDK's per-request path answers. Each case is sent twice to a real HTTP bridge:
// once with an envelope the bridge has never seen (so the SDK serves it) and once with an envelope
// a first call already made known (so the lane serves it); the two answers must be the same JSON
// (the SDK's result check may order keys differently, which JSON does not see).
// Which path served which request is pinned by the second part, on the lane's own decision.
import { createServer, type Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseListenAddress, type RunningBridge, serve } from '../../src/embed.js';
import { MemoryResourceStore, silentLogger, type ToolDefinition, ToolRegistry } from '../../src/index.js';
import { createServerFactory } from '../../src/server/create-server.js';
import { createHttpHandler } from '../../src/transports/http-handler.js';
import { envelope } from '../helpers/modern-request.js';

const annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

let upstream: NodeServer;
let upstreamUrl = '';
const received: string[] = [];

const tools: ToolDefinition[] = [
  {
    name: 'get_item',
    description: 'Fetches one item from the upstream.',
    inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
    outputSchema: { type: 'object', properties: { id: { type: 'integer' } } },
    annotations,
    async invoke(args, context) {
      const response = await fetch(`${upstreamUrl}/items/${Number(args.id)}`, { signal: context.signal });
      const body = (await response.json()) as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
    },
  },
  {
    name: 'list_words',
    description: 'Structured content that is not an object.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
    async invoke() {
      return { content: [], structuredContent: ['a', 'b'] as unknown as Record<string, unknown> };
    },
  },
  {
    name: 'with_meta',
    description: 'A result that carries its own _meta.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
    async invoke() {
      return { content: [{ type: 'text', text: 'ok' }], _meta: { 'example.com/trace': 'x' } } as never;
    },
  },
  {
    name: 'fail',
    description: 'Throws.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
    async invoke() {
      throw new Error('the upstream is down');
    },
  },
  {
    name: 'confirm',
    description: 'Asks the user before it answers.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
    async invoke(_args, context) {
      const answer = await context.ask?.elicit({
        key: 'sure',
        message: 'Sure?',
        requestedSchema: { type: 'object', properties: { yes: { type: 'boolean' } } },
      });
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
    },
  },
];

let bridge: RunningBridge;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    received.push(req.url ?? '');
    const id = Number(req.url?.split('/').pop());
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, name: `item ${id}` }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  bridge = await serve({
    log: silentLogger,
    transport: { kind: 'http', address: parseListenAddress('127.0.0.1:0') },
    sources: [{ label: 'direct', load: async () => tools }],
  });
});

afterAll(async () => {
  await bridge?.close();
  upstream?.close();
});

let clients = 0;

async function call(
  name: string,
  args: unknown,
  options: { client: string; capabilities?: object; id?: number | string },
) {
  const response = await fetch(bridge.url as string, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? 7,
      method: 'tools/call',
      params: { name, arguments: args, _meta: envelope(options.capabilities ?? {}, options.client) },
    }),
  });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

/** The same request through the SDK (a never-seen envelope) and through the lane (a known one). */
async function bothWays(name: string, args: unknown, capabilities: object = {}, id: number | string = 7) {
  const fresh = `sdk-${++clients}`;
  const known = `lane-${clients}`;
  const viaSdk = await call(name, args, { client: fresh, capabilities, id });
  await call('get_item', { id: 0 }, { client: known, capabilities }); // makes the envelope known
  const viaLane = await call(name, args, { client: known, capabilities, id });
  return { viaSdk, viaLane };
}

describe('the direct lane answers exactly what the SDK answers', () => {
  const cases: Array<[string, string, unknown, object?, (number | string)?]> = [
    ['a result with structured content, from the upstream', 'get_item', { id: 42 }],
    ['a string request id', 'get_item', { id: 5 }, {}, 'req-5'],
    ['arguments the input schema refuses', 'get_item', { id: 'forty-two' }],
    ['missing arguments', 'get_item', undefined],
    ['structured content that is not an object', 'list_words', {}],
    ['a result with its own _meta', 'with_meta', {}],
    ['a tool that throws', 'fail', {}],
    ['a question the client can answer (input_required)', 'confirm', {}, { elicitation: {} }],
    ['a question the client cannot answer (-32021, HTTP 400)', 'confirm', {}],
  ];
  it.each(cases)('%s', async (_label, name, args, capabilities, id) => {
    const { viaSdk, viaLane } = await bothWays(name, args, capabilities, id);
    expect(viaLane.status).toBe(viaSdk.status);
    expect(viaLane.type).toBe(viaSdk.type);
    // input_required carries a sealed request state that differs per request; all else is the same.
    const sealed = (text: string) => JSON.parse(text.replace(/"requestState":"[^"]+"/, '"requestState":"…"'));
    expect(sealed(viaLane.body)).toEqual(sealed(viaSdk.body));
    expect(viaSdk.body).not.toBe('');
  });

  it('the upstream got each call once, whichever path served it', async () => {
    received.length = 0;
    await bothWays('get_item', { id: 99 });
    expect(received.filter((url) => url === '/items/99')).toHaveLength(2);
  });
});

describe('which requests the lane takes', () => {
  const factory = createServerFactory({
    info: { name: 'lane', version: '1' },
    registry: () =>
      new ToolRegistry([
        {
          source: 'lane',
          tools: [
            tools[0] as ToolDefinition,
            { ...(tools[0] as ToolDefinition), name: 'as_task', taskSupport: 'optional' },
          ],
        },
      ]),
    resources: new MemoryResourceStore(),
    log: silentLogger,
    shutdown: new AbortController().signal,
  });
  const known = envelope({}, 'known');
  factory.direct.accepted(known);
  const headers = {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'get_item',
  };
  const takes = (body: Record<string, unknown>, extra: Record<string, string> = {}) =>
    factory.direct.answer({
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', ...body },
      request: new Request('http://localhost/mcp', { method: 'POST', headers: { ...headers, ...extra } }),
      signal: new AbortController().signal,
    }) !== undefined;
  const params = { name: 'get_item', arguments: { id: 1 }, _meta: known };

  it('takes a plain call with a known envelope and matching headers', () => {
    expect(takes({ params })).toBe(true);
    expect(takes({ params: { name: 'get_item', _meta: known } })).toBe(true);
  });

  const refused: Array<[string, Record<string, unknown>, Record<string, string>?]> = [
    ['an envelope the SDK has not accepted yet', { params: { ...params, _meta: envelope({}, 'new') } }],
    ['a progress token', { params: { ...params, _meta: { ...known, progressToken: 1 } } }],
    [
      'a log level',
      { params: { ...params, _meta: { ...known, 'io.modelcontextprotocol/logLevel': 'debug' } } },
    ],
    ['a retry with request state', { params: { ...params, requestState: 'x' } }],
    ['a retry with input responses', { params: { ...params, inputResponses: {} } }],
    ['a task request', { params: { ...params, task: { ttl: 1000 } } }],
    ['a tool that may run as a task', { params: { ...params, name: 'as_task' } }, { 'mcp-name': 'as_task' }],
    ['an unknown tool', { params: { ...params, name: 'nope' } }, { 'mcp-name': 'nope' }],
    ['arguments that are not an object', { params: { ...params, arguments: [1] } }],
    [
      'another revision',
      { params: { ...params, _meta: { ...known, 'io.modelcontextprotocol/protocolVersion': '2026-01-01' } } },
    ],
    ['an Mcp-Name header that does not match', { params }, { 'mcp-name': 'other' }],
    ['a missing Mcp-Method header', { params }, { 'mcp-method': '' }],
    [
      'an MCP-Protocol-Version header of another revision',
      { params },
      { 'mcp-protocol-version': '2025-11-25' },
    ],
    ['a notification', { id: undefined, params }],
    ['another method', { method: 'tools/list', params: { _meta: known } }],
  ];
  // JSON writes a missing clientInfo and a null one alike; the SDK accepts only the first.
  const withoutInfo = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  factory.direct.accepted(withoutInfo);
  it('takes a known envelope without clientInfo', () => {
    expect(takes({ params: { ...params, _meta: withoutInfo } })).toBe(true);
  });
  refused.push(
    [
      'a null clientInfo, when the same envelope without one is known',
      { params: { ...params, _meta: { ...withoutInfo, 'io.modelcontextprotocol/clientInfo': null } } },
    ],
    [
      'null capabilities',
      { params: { ...params, _meta: { ...known, 'io.modelcontextprotocol/clientCapabilities': null } } },
    ],
  );
  factory.direct.accepted({ ...known, 'io.modelcontextprotocol/clientCapabilities': null });
  const huge = envelope({}, 'x'.repeat(5_000));
  factory.direct.accepted(huge);
  refused.push(['an envelope too large to remember', { params: { ...params, _meta: huge } }]);
  it.each(refused)('leaves to the SDK: %s', (_label, body, extra) => {
    expect(takes(body, extra)).toBe(false);
  });

  it('knows an envelope once the SDK has served a call with it, and no sooner', async () => {
    const later = envelope({ roots: {} }, 'later');
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, _meta: later } };
    const ask = () =>
      factory.direct.answer({
        body,
        request: new Request('http://localhost/mcp', { method: 'POST', headers }),
        signal: new AbortController().signal,
      });
    expect(ask()).toBeUndefined();
    const handler = createHttpHandler(factory, { log: silentLogger });
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    });
    const answer = await handler.fetch(request, { admission: { quotaKey: 'test' }, parsedBody: body });
    expect(answer).toBeInstanceOf(Response);
    expect(await (answer as Response).json()).toMatchObject({ id: 1, result: { resultType: 'complete' } });
    expect(ask()).toBeDefined();
    await handler.close();
  });
});
