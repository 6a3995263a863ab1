// The 2026-07-28 HTTP lane answers a plain tools/list from the tools' kept JSON (list-json.ts),
// without a server per request or a serialization of every schema. It must answer exactly what
// the SDK's per-request path answers: each page is asked through the SDK (an envelope the bridge
// has never seen) and through the lane (one a first list made known), and the answers compared.
// Which path served is pinned on the lane's own decision in the second part.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseListenAddress, type RunningBridge, serve } from '../../src/embed.js';
import {
  keepListedJson,
  MemoryResourceStore,
  silentLogger,
  type ToolDefinition,
  ToolRegistry,
  textResult,
} from '../../src/index.js';
import { createServerFactory } from '../../src/server/create-server.js';
import { envelope } from '../helpers/modern-request.js';

const annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

function kept(n: number): ToolDefinition {
  const members = {
    title: `Tool ${n}`,
    description: `Tool number ${n}.`,
    inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, additionalProperties: false },
    outputSchema: { type: 'object', properties: { id: { type: 'integer' } } },
    annotations,
  };
  const definition = {
    name: `tool_${String(n).padStart(4, '0')}`,
    ...members,
    invoke: async () => textResult('ok'),
  };
  return keepListedJson(definition, Buffer.from(JSON.stringify(members)));
}

// 600 kept tools, one plain tool and one that may run as a task (its `execution` is deleted in
// 2026-07-28 answers): two pages.
const tools: ToolDefinition[] = [
  ...Array.from({ length: 600 }, (_, n) => kept(n)),
  {
    name: 'plain',
    description: 'No kept text.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
    invoke: async () => textResult('ok'),
  },
  {
    name: 'tasky',
    description: 'May run as a task.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
    taskSupport: 'optional',
    invoke: async () => textResult('ok'),
  },
];

let bridge: RunningBridge;
beforeAll(async () => {
  bridge = await serve({
    log: silentLogger,
    transport: { kind: 'http', address: parseListenAddress('127.0.0.1:0') },
    sources: [{ label: 'list', load: async () => tools }],
  });
});
afterAll(async () => {
  await bridge?.close();
});

async function list(client: string, params: Record<string, unknown> = {}, id: number | string = 3) {
  const response = await fetch(bridge.url as string, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/list',
      params: { ...params, _meta: envelope({}, client) },
    }),
  });
  const body = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body,
    json: JSON.parse(body),
  };
}

describe('the 2026-07-28 list lane answers exactly what the SDK answers', () => {
  it('every page, with its cursor, result type, cache fields and server identity', async () => {
    const first = await list('sdk-1');
    const cursor = first.json.result.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const second = await list('sdk-2', { cursor }, 'page-2');
    await list('lane'); // makes the envelope known
    const laneFirst = await list('lane');
    const laneSecond = await list('lane', { cursor }, 'page-2');
    for (const [sdk, lane] of [
      [first, laneFirst],
      [second, laneSecond],
    ] as const) {
      expect(lane.status).toBe(sdk.status);
      expect(lane.type).toBe(sdk.type);
      expect(lane.json).toEqual(sdk.json);
    }
    expect(first.json.result.tools).toHaveLength(500);
    expect(second.json.result.tools).toHaveLength(102);
    expect(second.json.result).not.toHaveProperty('nextCursor');
    // Listed by name: `plain` and `tasky` come before the `tool_…` ones.
    const [plain, tasky, kept0] = laneFirst.json.result.tools as Array<Record<string, unknown>>;
    expect([plain?.name, tasky?.name, kept0?.name]).toEqual(['plain', 'tasky', 'tool_0000']);
    expect(tasky).not.toHaveProperty('execution');
    // The lane wrote the kept text as it is (title second); the SDK builds listEntry's order.
    expect(Object.keys(kept0 as object).slice(0, 2)).toEqual(['name', 'title']);
    expect(Object.keys(first.json.result.tools[2]).slice(0, 2)).toEqual(['name', 'description']);
  });

  it('leaves an unreadable cursor to the SDK, which answers -32602', async () => {
    await list('lane-bad');
    const bad = await list('lane-bad', { cursor: '!!' });
    expect(bad.json.error.code).toBe(-32602);
  });
});

describe('which list requests the lane takes', () => {
  const factory = createServerFactory({
    info: { name: 'lane', version: '1' },
    registry: () => new ToolRegistry([{ source: 'lane', tools }]),
    resources: new MemoryResourceStore(),
    log: silentLogger,
    shutdown: new AbortController().signal,
  });
  const known = envelope({}, 'known');
  factory.direct.accepted(known);
  const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' };
  const takes = (body: Record<string, unknown>, extra: Record<string, string> = {}) =>
    factory.direct.answer({
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', ...body },
      request: new Request('http://localhost/mcp', { method: 'POST', headers: { ...headers, ...extra } }),
      signal: new AbortController().signal,
    }) !== undefined;

  it('takes a plain list with a known envelope, with or without a cursor', async () => {
    expect(takes({ params: { _meta: known } })).toBe(true);
    const first = await factory.direct.answer({
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: known } },
      request: new Request('http://localhost/mcp', { method: 'POST', headers }),
      signal: new AbortController().signal,
    });
    const { body } = first as { body: Uint8Array };
    const { nextCursor } = JSON.parse(Buffer.from(body).toString('utf8')).result;
    expect(takes({ params: { _meta: known, cursor: nextCursor } })).toBe(true);
  });

  it.each([
    ['an envelope the SDK has not accepted yet', { params: { _meta: envelope({}, 'new') } }],
    ['a progress token', { params: { _meta: { ...known, progressToken: 1 } } }],
    ['another params member', { params: { _meta: known, filter: 'x' } }],
    ['an unreadable cursor', { params: { _meta: known, cursor: '!!' } }],
    ['a bare offset (not a cursor the server issued)', { params: { _meta: known, cursor: 'NTAw' } }],
    ['a cursor that is not a string', { params: { _meta: known, cursor: 5 } }],
    ['no params', {}],
    ['a notification', { id: undefined, params: { _meta: known } }],
    ['another top-level member', { params: { _meta: known }, extra: 1 }],
  ] as Array<[string, Record<string, unknown>]>)('leaves to the SDK: %s', (_label, body) => {
    expect(takes(body)).toBe(false);
  });

  it.each([
    ['an Mcp-Name header', { 'mcp-name': 'x' }],
    ['another Mcp-Method', { 'mcp-method': 'tools/call' }],
    ['another revision', { 'mcp-protocol-version': '2025-11-25' }],
  ])('leaves to the SDK: %s', (_label, extra) => {
    expect(takes({ params: { _meta: known } }, extra)).toBe(false);
  });

  it('takes a registry without kept text too, each tool serialized as in the pages compared above', async () => {
    const plain = createServerFactory({
      info: { name: 'lane', version: '1' },
      registry: () => new ToolRegistry([{ source: 'lane', tools: tools.slice(600) }]),
      resources: new MemoryResourceStore(),
      log: silentLogger,
      shutdown: new AbortController().signal,
    });
    plain.direct.accepted(known);
    const answer = await plain.direct.answer({
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: known } },
      request: new Request('http://localhost/mcp', { method: 'POST', headers }),
      signal: new AbortController().signal,
    });
    expect(answer && 'body' in answer).toBe(true);
    const page = JSON.parse(Buffer.from((answer as { body: Uint8Array }).body).toString('utf8'));
    expect(page.result.tools).toEqual([
      {
        name: 'plain',
        description: 'No kept text.',
        inputSchema: { type: 'object', properties: {} },
        annotations,
      },
      {
        name: 'tasky',
        description: 'May run as a task.',
        inputSchema: { type: 'object', properties: {} },
        annotations,
      },
    ]);
  });
});
