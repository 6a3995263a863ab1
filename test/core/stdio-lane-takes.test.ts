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
import { envelope } from '../helpers/modern-request.js';

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

/** The first page the lane wrote. */
const firstPage = (written: string[]) =>
  JSON.parse(written[0] as string) as { result: { tools: Array<Record<string, unknown>> } };

async function connection(
  tools: ToolDefinition[],
  protocolVersion = '2025-11-25',
  registry = () => new ToolRegistry([{ source: 'pin', tools }]),
) {
  const factory = createServerFactory({
    info: { name: 'pin', version: '1' },
    registry,
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
    /** The SDK's own answer to the same request. */
    sdk: async (method: string, params?: unknown) => {
      const id = 1000 + next++;
      await client.send({
        jsonrpc: '2.0',
        id,
        method,
        ...(params === undefined ? {} : { params }),
      } as JSONRPCMessage);
      for (let i = 0; i < 200 && !replies.has(id); i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      return replies.get(id);
    },
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
      const page = firstPage(pin.written);
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
      expect(firstPage(pin.written).result.tools[1]).toEqual({
        name: 'e',
        description: 'e',
        inputSchema: tool('e').inputSchema,
        annotations,
      });
    } finally {
      await pin.close();
    }
  });

  it('tools/list of a registry without kept text is written as the SDK writes it', async () => {
    // More tools than one JSON.stringify serializes (see toolsListPage), a kept one among them.
    const more = Array.from({ length: 130 }, (_, index) =>
      index === 70 ? kept(`m${index}`) : tool(`m${String(index).padStart(3, '0')}`),
    );
    const pin = await connection([tool('a'), tool('b', { taskSupport: 'optional' }), ...more]);
    try {
      expect(pin.take('tools/list')).toBe(true);
      const sdk = await pin.sdk('tools/list');
      // As serialized: the in-memory transport hands over objects (with the SDK's symbol-keyed hints).
      expect(JSON.parse(pin.written[0] as string)).toEqual({ ...JSON.parse(JSON.stringify(sdk)), id: 1 });
      expect(JSON.parse(pin.written[0] as string).result.tools[1].execution).toEqual({
        taskSupport: 'optional',
      });
    } finally {
      await pin.close();
    }
  });

  it('tools/list stays with the SDK for an old client, or with a non-object output schema', async () => {
    for (const [tools, version] of [
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

describe('tools/list pages made ahead of the request', () => {
  // 1,100 tools (three pages), every third with kept text; `reads` counts the descriptions read,
  // which is what serializing a tool without kept text does.
  function pages(variant: string) {
    const reads = { count: 0 };
    const tools = Array.from({ length: 1_100 }, (_, index) => {
      const name = `t${String(index).padStart(4, '0')}`;
      if (index % 3 === 0) return kept(name);
      const definition = tool(name);
      return Object.defineProperty(definition, 'description', {
        enumerable: true,
        get: () => {
          reads.count++;
          return `${name} ${variant}`;
        },
      });
    });
    return { registry: new ToolRegistry([{ source: 'pin', tools }]), reads };
  }
  // Two turns of the event loop: the page is made on the turn after its predecessor's write settled.
  const tick = async () => {
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
  };
  const cursorOf = (line: string | undefined) =>
    (JSON.parse(line as string) as { result: { nextCursor?: string } }).result.nextCursor;

  it('a client that reads each page before asking for the next gets what asking at once gets', async () => {
    const { registry, reads } = pages('a');
    const waiting = await connection([], '2025-11-25', () => registry);
    const hurried = await connection([], '2025-11-25', () => registry);
    try {
      for (const pin of [waiting, hurried]) {
        let cursor: string | undefined;
        do {
          if (pin === waiting) await tick();
          const before = reads.count;
          expect(pin.take('tools/list', cursor === undefined ? undefined : { cursor })).toBe(true);
          // Waiting, the page was made ahead: nothing of it is serialized when it is asked for.
          if (pin === waiting && cursor !== undefined) expect(reads.count).toBe(before);
          cursor = cursorOf(pin.written.at(-1));
        } while (cursor);
      }
      expect(waiting.written).toHaveLength(3);
      expect(waiting.written).toEqual(hurried.written);
      const names = waiting.written.flatMap((line) =>
        firstPage([line]).result.tools.map((entry) => entry.name as string),
      );
      expect(names).toEqual(registry.tools.map((entry) => entry.name));
    } finally {
      await waiting.close();
      await hurried.close();
    }
  });

  it('a client that keeps asking for the first page soon gets no page made ahead', async () => {
    const { registry, reads } = pages('a');
    const pin = await connection([], '2025-11-25', () => registry);
    try {
      const counts: number[] = [];
      for (let round = 0; round < 6; round++) {
        await tick();
        const before = reads.count;
        expect(pin.take('tools/list')).toBe(true);
        await tick();
        // What this round serialized: the first page, and the second made ahead while allowed.
        counts.push(reads.count - before);
      }
      // 333 described tools a page (every third tool keeps its text); rounds 1 to 4 make the second
      // page too (the first makes it once; three go unused), then no more.
      expect(counts.slice(0, 3)).toEqual([333 * 2, 333 * 2, 333 * 2]);
      expect(counts.slice(-2)).toEqual([333, 333]);
    } finally {
      await pin.close();
    }
  });

  it('a page made ahead is not served once the tools have changed', async () => {
    const before = pages('before');
    const after = pages('after');
    let current = before.registry;
    const pin = await connection([], '2025-11-25', () => current);
    try {
      expect(pin.take('tools/list')).toBe(true);
      await tick();
      // The second page was made from the tools before the change.
      expect(before.reads.count).toBeGreaterThan(0);
      current = after.registry;
      expect(pin.take('tools/list', { cursor: cursorOf(pin.written[0]) })).toBe(true);
      const second = firstPage([pin.written[1] as string]).result.tools;
      expect(second.find((entry) => entry.name === 't0502')?.description).toBe('t0502 after');
    } finally {
      await pin.close();
    }
  });
});

describe("the SDK's tools/list", () => {
  it('builds the entries of the page it answers, not of the whole list', async () => {
    const reads = new Set<string>();
    const tools = Array.from({ length: 1_100 }, (_, index) => {
      const name = `t${String(index).padStart(4, '0')}`;
      return Object.defineProperty(tool(name), 'description', {
        enumerable: true,
        get: () => {
          reads.add(name);
          return name;
        },
      });
    });
    const registry = new ToolRegistry([{ source: 'pin', tools }]);
    const pin = await connection([], '2025-11-25', () => registry);
    try {
      const first = (await pin.sdk('tools/list')) as unknown as {
        result: { tools: unknown[]; nextCursor: string };
      };
      expect(first.result.tools).toHaveLength(500);
      expect(reads.size).toBe(500);
      const second = (await pin.sdk('tools/list', { cursor: first.result.nextCursor })) as unknown as {
        result: { tools: Array<{ name: string }> };
      };
      expect(second.result.tools[0]?.name).toBe('t0500');
      expect(reads.size).toBe(1_000);
    } finally {
      await pin.close();
    }
  });
});

describe('initialize on a stdio connection', () => {
  const setup = () =>
    createServerFactory({
      info: { name: 'pin', version: '1' },
      instructions: 'Use the tools.',
      registry: () => new ToolRegistry([{ source: 'pin', tools: [kept('a'), tool('b')] }]),
      resources: new MemoryResourceStore(),
      log: silentLogger,
      shutdown: new AbortController().signal,
    });

  // The SDK's own answer to `params`, and the state it leaves its server in.
  async function throughSdk(params: Record<string, unknown>) {
    const server = setup()({ era: 'legacy' } as McpRequestContext);
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    let reply: JSONRPCMessage | undefined;
    client.onmessage = (message) => {
      reply = message;
    };
    await server.connect(serverSide);
    await client.start();
    await client.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params } as JSONRPCMessage);
    for (let i = 0; i < 200 && !reply; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const state = stateOf(server);
    await server.close();
    return { reply: JSON.parse(JSON.stringify(reply)), state };
  }
  const stateOf = (server: ReturnType<ReturnType<typeof setup>>) => ({
    version: server.getNegotiatedProtocolVersion(),
    client: server.getClientVersion(),
    capabilities: server.getClientCapabilities(),
  });

  it.each([
    { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    {
      protocolVersion: '2025-06-18',
      capabilities: { roots: { listChanged: true } },
      clientInfo: { name: 'c', version: '1' },
    },
    {
      protocolVersion: '2024-11-05',
      capabilities: { elicitation: {} },
      clientInfo: { name: 'c', title: 'C', version: '2' },
    },
    {
      protocolVersion: '1999-01-01',
      capabilities: { sampling: {} },
      clientInfo: { name: 'c', version: '1' },
    },
  ])(
    'is answered by the lane as the SDK answers it, and leaves the server as the SDK does (%o)',
    async (params) => {
      const factory = setup();
      const sent: JSONRPCMessage[] = [];
      const lane = factory.stdioLane({
        send: async (message) => {
          sent.push(message);
        },
        write: async () => {},
      });
      const server = lane.initialize({ jsonrpc: '2.0', id: 1, method: 'initialize', params }, () =>
        factory({ era: 'legacy' } as McpRequestContext),
      );
      expect(server).toBeDefined();
      for (let i = 0; i < 200 && sent.length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      const sdk = await throughSdk(params);
      expect(JSON.parse(JSON.stringify(sent[0]))).toEqual(sdk.reply);
      expect(stateOf(server as NonNullable<typeof server>)).toEqual(sdk.state);
      // Before the SDK pins the server, the lane lists (a client since 2025-06-18) and takes nothing else.
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
      expect(lane.takeOpening(server as NonNullable<typeof server>, list)).toBe(
        (sdk.state.version ?? '') >= '2025-06-18',
      );
      expect(lane.takeOpening(server as NonNullable<typeof server>, { ...list, method: 'ping' })).toBe(false);
      const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
      expect(lane.takeOpening(server as NonNullable<typeof server>, initialized)).toBe(true);
      expect(lane.takeOpening(server as NonNullable<typeof server>, { ...initialized, params: 1 })).toBe(
        false,
      );
      expect(lane.takeOpening(server as NonNullable<typeof server>, { ...initialized, id: 9 })).toBe(false);
      lane.closed();
    },
  );

  it('is left to the SDK when the request is not plain, and no server is made for it', () => {
    const factory = setup();
    const lane = factory.stdioLane({ send: async () => {}, write: async () => {} });
    let made = 0;
    const open = () => {
      made++;
      return factory({ era: 'legacy' } as McpRequestContext);
    };
    const params = {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    };
    expect(
      lane.initialize(
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { ...params, _meta: {} } },
        open,
      ),
    ).toBeUndefined();
    expect(lane.initialize({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, open)).toBeUndefined();
    expect(made).toBe(0);
    lane.closed();
  });
});

describe('tools/list on a stdio connection pinned to 2026-07-28', () => {
  it('is taken once the SDK has accepted its envelope, and written as one line', () => {
    const factory = createServerFactory({
      info: { name: 'pin', version: '1' },
      registry: () => new ToolRegistry([{ source: 'pin', tools: [kept('a'), tool('b')] }]),
      resources: new MemoryResourceStore(),
      log: silentLogger,
      shutdown: new AbortController().signal,
    });
    const written: string[] = [];
    const lane = factory.stdioLane({
      send: async () => {},
      write: async (line) => {
        written.push(Buffer.from(line).toString('utf8'));
      },
    });
    const meta = envelope({}, 'pin');
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } };
    expect(lane.takeModern(list)).toBe(false);
    factory.direct.accepted(meta);
    expect(lane.takeModern(list)).toBe(true);
    expect(lane.takeModern({ ...list, params: { _meta: { ...meta, progressToken: 1 } } })).toBe(false);
    expect(lane.takeModern({ ...list, method: 'tools/call' })).toBe(false);
    expect(written).toHaveLength(1);
    expect(written[0]?.endsWith('}\n')).toBe(true);
    expect(JSON.parse(written[0] as string).result).toMatchObject({ resultType: 'complete', ttlMs: 60_000 });
    lane.closed();
  });
});
