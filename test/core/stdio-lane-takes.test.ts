import { InMemoryTransport, type JSONRPCMessage, type McpRequestContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import {
  keepListedJson,
  MemoryResourceStore,
  silentLogger,
  type ToolDefinition,
  ToolRegistry,
  textResult,
} from '../../src/index.js';
import { createServerFactory } from '../../src/server/create-server.js';

// Which messages of an initialize-era stdio connection the lane takes, decided by the lane itself
// (the comparisons over a real process cannot tell: both paths answer alike). A plain call and a
// plain list of kept text go to the lane; anything it does not answer exactly as the SDK would
// stays with the SDK.

const annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

function tool(name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    description: name,
    inputSchema: { type: 'object', properties: {} },
    annotations,
    invoke: async () => textResult('ok'),
    ...extra,
  };
}

/** A kept-text tool: its listed members as the JSON `keepListedJson` promises. */
function kept(name: string): ToolDefinition {
  const definition = tool(name, { title: name.toUpperCase() });
  const { title, description, inputSchema, annotations: hints } = definition;
  return keepListedJson(
    definition,
    Buffer.from(JSON.stringify({ title, description, inputSchema, annotations: hints })),
  );
}

async function connection(tools: ToolDefinition[], protocolVersion = '2025-11-25') {
  const factory = createServerFactory({
    info: { name: 'pin', version: '1' },
    registry: () => new ToolRegistry([{ source: 'pin', tools }]),
    resources: new MemoryResourceStore(),
    log: silentLogger,
    shutdown: new AbortController().signal,
  });
  const written: string[] = [];
  const sent: JSONRPCMessage[] = [];
  const lane = factory.stdioLane({
    send: async (message) => {
      sent.push(message);
    },
    write: async (line) => {
      written.push(Buffer.from(line).toString('utf8'));
    },
  });
  const server = factory({ era: 'legacy' } as McpRequestContext);
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const replies = new Map<number, JSONRPCMessage>();
  client.onmessage = (message) => {
    if ('id' in message && typeof message.id === 'number') replies.set(message.id, message);
  };
  await server.connect(serverSide);
  await client.start();
  await client.send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'pin', version: '1' } },
  } as JSONRPCMessage);
  for (let i = 0; i < 200 && !replies.has(0); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  let next = 1;
  return {
    take: (method: string, params?: unknown, extra: Record<string, unknown> = {}) =>
      lane.take(server, {
        jsonrpc: '2.0',
        id: next++,
        method,
        ...(params === undefined ? {} : { params }),
        ...extra,
      }),
    written,
    sent,
    close: async () => {
      lane.closed();
      await server.close();
    },
  };
}

describe('which stdio messages the lane takes (in-process, on its own decision)', () => {
  it('tools/call: a plain call of a known tool that never runs as a task', async () => {
    const pin = await connection([tool('plain'), tool('tasky', { taskSupport: 'optional' })]);
    try {
      expect(pin.take('tools/call', { name: 'plain', arguments: {} })).toBe(true);
      expect(pin.take('tools/call', { name: 'plain', _meta: { progressToken: 1 } })).toBe(true);
      expect(pin.take('tools/call', { name: 'plain', _meta: { 'example.com/x': 1 } })).toBe(false);
      expect(pin.take('tools/call', { name: 'tasky' })).toBe(false);
      expect(pin.take('tools/call', { name: 'nope' })).toBe(false);
      expect(pin.take('tools/call', { name: 'plain', task: {} })).toBe(false);
      expect(pin.take('tools/call', { name: 'plain' }, { extra: true })).toBe(false);
      // The two calls taken are answered by the lane (polled: no fixed wait on a shared machine).
      const answered = () => pin.sent.filter((message) => 'result' in message).length;
      for (let i = 0; i < 200 && answered() < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(answered()).toBe(2);
    } finally {
      await pin.close();
    }
  });

  it('tools/list: a plain page of a registry with kept text, written as bytes', async () => {
    const pin = await connection([kept('a'), kept('b'), tool('c')]);
    try {
      expect(pin.take('tools/list')).toBe(true);
      expect(pin.take('tools/list', {})).toBe(true);
      expect(pin.take('tools/list', { cursor: 'not a cursor' })).toBe(false);
      expect(pin.take('tools/list', { _meta: { progressToken: 1 } })).toBe(false);
      expect(pin.take('tools/list', { cursor: 1 })).toBe(false);
      expect(pin.take('tools/list', undefined, { id: null })).toBe(false);
      expect(pin.written).toHaveLength(2);
      const page = JSON.parse(pin.written[0] as string) as {
        result: { tools: Array<Record<string, unknown>> };
      };
      expect(page.result.tools.map((entry) => entry.name)).toEqual(['a', 'b', 'c']);
      // Kept text as it is (title second), the other tool as listEntry builds it.
      expect(Object.keys(page.result.tools[0] as object).slice(0, 2)).toEqual(['name', 'title']);
      expect(page.result.tools[2]).toEqual({
        name: 'c',
        description: 'c',
        inputSchema: tool('c').inputSchema,
        annotations,
      });
    } finally {
      await pin.close();
    }
  });

  it('a kept text that is not a non-empty object is listed from the members instead', async () => {
    const empty = keepListedJson(tool('e'), Buffer.from('{}'));
    const pin = await connection([kept('a'), empty]);
    try {
      expect(pin.take('tools/list')).toBe(true);
      const page = JSON.parse(pin.written[0] as string) as {
        result: { tools: Array<Record<string, unknown>> };
      };
      expect(page.result.tools[1]).toEqual({
        name: 'e',
        description: 'e',
        inputSchema: tool('e').inputSchema,
        annotations,
      });
    } finally {
      await pin.close();
    }
  });

  it('tools/list stays with the SDK without kept text, for an old client, or with a non-object output schema', async () => {
    for (const [tools, version] of [
      [[tool('a'), tool('b')], '2025-11-25'],
      [[kept('a')], '2025-03-26'],
      [[kept('a'), tool('b', { outputSchema: { type: 'array' } })], '2025-11-25'],
    ] as const) {
      const pin = await connection([...tools], version);
      try {
        expect(pin.take('tools/list')).toBe(false);
        expect(pin.written).toEqual([]);
      } finally {
        await pin.close();
      }
    }
  });
});
