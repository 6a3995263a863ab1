// Pins the one workaround around the SDK (src/tasks/intercept-tools-call.ts): if an SDK upgrade
// breaks it, these tests fail with a message saying what changed, before any client sees it.
import { readFileSync } from 'node:fs';
import { InMemoryTransport, type JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { interceptToolsCall } from '../../src/tasks/intercept-tools-call.js';

const TASK = {
  taskId: 'pinned',
  status: 'working',
  createdAt: '2026-01-01T00:00:00.000Z',
  lastUpdatedAt: '2026-01-01T00:00:00.000Z',
  ttl: 60_000,
  pollInterval: 1000,
};

/** A low-level server answering `tools/call` plainly, spoken to over an in-memory pair. */
async function legacySession(intercept: boolean) {
  const server = new Server({ name: 'pin', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', () => ({ content: [{ type: 'text', text: 'plain' }] }));
  if (intercept) {
    interceptToolsCall(server, (request) =>
      request.params?.task === undefined ? undefined : Promise.resolve({ task: TASK }),
    );
  }
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const replies = new Map<number, JSONRPCMessage>();
  client.onmessage = (message) => {
    if ('id' in message && typeof message.id === 'number') replies.set(message.id, message);
  };
  await server.connect(serverSide);
  await client.start();
  const request = async (id: number, method: string, params: Record<string, unknown>) => {
    await client.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    for (let i = 0; i < 200 && !replies.has(id); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    return replies.get(id) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  };
  await request(0, 'initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'pin', version: '1' },
  });
  return { request, close: () => server.close() };
}

describe('the SDK workaround for task-creating tools/call results', () => {
  it('runs on the SDK version it was written for', () => {
    const pkg = JSON.parse(
      readFileSync(
        new URL('../../node_modules/@modelcontextprotocol/server/package.json', import.meta.url),
        'utf8',
      ),
    ) as { version: string };
    // A new SDK version may keep handlers elsewhere or accept task results itself: re-check
    // src/tasks/intercept-tools-call.ts against it, then update this pin.
    expect(pkg.version, 'SDK upgraded: re-check src/tasks/intercept-tools-call.ts').toBe('2.4.0');
  });

  it('is still needed: the SDK’s own tools/call path refuses a {task} result', async () => {
    const server = new Server({ name: 'pin', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/call', () => ({ task: TASK }) as never);
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    let reply: { error?: { code: number; message: string } } | undefined;
    client.onmessage = (message) => {
      if ('id' in message && message.id === 2) reply = message as typeof reply;
    };
    await server.connect(serverSide);
    await client.start();
    await client.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'pin', version: '1' } },
    } as JSONRPCMessage);
    await client.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'x', arguments: {}, task: {} },
    } as JSONRPCMessage);
    for (let i = 0; i < 200 && !reply; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(
      reply?.error,
      'the SDK now accepts {task} from tools/call: the workaround may be dropped',
    ).toMatchObject({
      message: expect.stringContaining('Invalid tools/call result'),
    });
    await server.close();
  });

  it('delivers a {task} result through the interception, and leaves plain calls to the SDK', async () => {
    const session = await legacySession(true);
    try {
      const task = await session.request(1, 'tools/call', {
        name: 'x',
        arguments: {},
        task: { ttl: 60_000 },
      });
      expect(task.error, JSON.stringify(task.error)).toBeUndefined();
      expect(task.result).toEqual({ task: TASK });
      const plain = await session.request(2, 'tools/call', { name: 'x', arguments: {} });
      expect(plain.result).toEqual({ content: [{ type: 'text', text: 'plain' }] });
    } finally {
      await session.close();
    }
  });

  it('fails loudly when the handler table is not where it expects', () => {
    const server = new Server({ name: 'pin', version: '1' }, { capabilities: { tools: {} } });
    // Nothing registered for tools/call yet: the same error an SDK that moved its table would give.
    expect(() => interceptToolsCall(server, () => undefined)).toThrow(
      /Update src\/tasks\/intercept-tools-call.ts/,
    );
  });
});
