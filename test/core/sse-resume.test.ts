// Resumable SSE streams of initialize-era HTTP sessions: a client whose stream broke mid-call
// reconnects with Last-Event-ID and receives what it missed, the result included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents } from '../helpers/read-sse.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';

const echoServer = { script: distPath('test/servers/echo-server.js'), args: [] };

describe('resumable SSE streams (initialize era, HTTP)', () => {
  let bridge: HttpBridge;
  beforeAll(async () => {
    bridge = await startHttpBridge(echoServer);
  });
  afterAll(async () => bridge?.[Symbol.asyncDispose]());

  const post = (body: unknown, session?: string) =>
    fetch(bridge.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...(session ? { 'mcp-session-id': session } : {}),
      },
      body: JSON.stringify(body),
    });

  it('replays the events after Last-Event-ID, result included, and refuses an unknown id', async () => {
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const session = String(init.headers.get('mcp-session-id'));
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();

    const call = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'slow', arguments: { ms: 1200, steps: 6 }, _meta: { progressToken: 'p' } },
      },
      session,
    );
    // The connection breaks after the first progress notification.
    const [first] = await readEvents(call, (event) => event.data.method === 'notifications/progress');
    expect(first?.id).toBeDefined();
    expect(first?.data.params).toMatchObject({ progress: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const resumed = await fetch(bridge.url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': String(first?.id),
      },
    });
    expect(resumed.status).toBe(200);
    const missed = await readEvents(resumed, (event) => event.data.id === 2);
    const progress = missed.filter((event) => event.data.method === 'notifications/progress');
    expect(progress.map((event) => (event.data.params as { progress: number }).progress)).toEqual([
      2, 3, 4, 5, 6,
    ]);
    expect(missed.at(-1)?.data).toMatchObject({
      id: 2,
      result: { content: [{ type: 'text', text: 'done' }] },
    });

    const unknown = await fetch(bridge.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': 'no-such-event' },
    });
    expect(unknown.status).toBe(400);
  });
});

describe('the session event store', () => {
  it('keeps the newest events within its count and byte bounds', async () => {
    const { SessionEventStore } = await import('../../src/transports/session-event-store.js');
    const store = new SessionEventStore({ maxEvents: 3, maxBytes: 10_000 });
    const message = (n: number) => ({
      jsonrpc: '2.0' as const,
      method: 'notifications/message',
      params: { n },
    });
    const ids = [];
    for (let n = 1; n <= 5; n++) ids.push(await store.storeEvent('s', message(n)));
    expect(store.size).toBe(3);
    expect(await store.getStreamIdForEventId(String(ids[0]))).toBeUndefined();
    const replayed: unknown[] = [];
    await store.replayEventsAfter(String(ids[2]), { send: async (_id, m) => void replayed.push(m) });
    expect(replayed).toEqual([message(4), message(5)]);

    const small = new SessionEventStore({ maxEvents: 100, maxBytes: 200 });
    for (let n = 1; n <= 10; n++) await small.storeEvent('s', message(n));
    expect(small.size).toBeLessThan(10);
    expect(small.size).toBeGreaterThan(0);
  });

  it('all sessions together keep at most their budget: the oldest events of any session go first', async () => {
    const { EVENT_OVERHEAD, EventBudget, SessionEventStore } = await import(
      '../../src/transports/session-event-store.js'
    );
    // Eight events of 116 bytes and their overhead fit; a ninth does not.
    const budget = new EventBudget(8 * (116 + EVENT_OVERHEAD) + 100);
    const first = new SessionEventStore({ budget });
    const second = new SessionEventStore({ budget });
    const text = (n: number) =>
      JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { pad: 'x'.repeat(60), n } });
    const firstIds = Array.from({ length: 4 }, (_, n) => first.append('a', text(n)));
    const secondIds = Array.from({ length: 4 }, (_, n) => second.append('b', text(n)));
    expect(firstIds.every((id) => first.holds(id)) && secondIds.every((id) => second.holds(id))).toBe(true);
    // Past the budget, the second session's next event pushes out the first session's oldest.
    secondIds.push(second.append('b', text(4)));
    expect(budget.bytes).toBeLessThanOrEqual(8 * (116 + EVENT_OVERHEAD) + 100);
    expect(first.holds(firstIds[0] as string)).toBe(false);
    expect(first.holds(firstIds[1] as string)).toBe(true);
    expect(second.holds(secondIds.at(-1) as string)).toBe(true);
    // What a session keeps is released with it.
    const before = budget.bytes;
    first.clear();
    expect(first.size).toBe(0);
    expect(budget.bytes).toBeLessThan(before);
    second.clear();
    expect(budget.bytes).toBe(0);
    // A session that drops its own events by its own bounds keeps the budget's books straight.
    const own = new SessionEventStore({ budget, maxEvents: 2 });
    for (let n = 0; n < 5_000; n++) own.append('c', text(n));
    expect(own.size).toBe(2);
    expect(budget.bytes).toBe(
      2 * (Buffer.byteLength(text(4_999)) + EVENT_OVERHEAD) - (String(4_999).length - String(4_998).length),
    );
  });

  it("shares the budget between callers: one caller's many or large events push out only its own", async () => {
    const { EVENT_OVERHEAD, EventBudget, SessionEventStore } = await import(
      '../../src/transports/session-event-store.js'
    );
    const text = (n: number) =>
      JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { pad: 'x'.repeat(60), n } });
    const budget = new EventBudget(8 * (116 + EVENT_OVERHEAD) + 100);
    const victim = new SessionEventStore({ budget, owner: 'auth:alice' });
    const kept = [victim.append('a', text(0)), victim.append('a', text(1))];
    // Mallory's sessions (each within its own bounds) send on: only Mallory's oldest go.
    const mallory = [1, 2, 3].map(() => new SessionEventStore({ budget, owner: 'auth:mallory' }));
    const sent: Array<[InstanceType<typeof SessionEventStore>, string]> = [];
    for (let n = 0; n < 30; n++) {
      const store = mallory[n % 3] as InstanceType<typeof SessionEventStore>;
      sent.push([store, store.append('m', text(n))]);
    }
    expect(kept.every((id) => victim.holds(id))).toBe(true);
    expect(budget.bytes).toBeLessThanOrEqual(8 * (116 + EVENT_OVERHEAD) + 100);
    expect(sent.filter(([store, id]) => store.holds(id)).length).toBe(6);
    expect(sent.at(-1)?.[0].holds(sent.at(-1)?.[1] as string)).toBe(true);
    // One answer larger than the whole budget is not kept at all; the others' events stay.
    const huge = mallory[0]?.append('m', JSON.stringify({ pad: 'y'.repeat(4_000) })) as string;
    expect(mallory[0]?.holds(huge)).toBe(false);
    expect(kept.every((id) => victim.holds(id))).toBe(true);
  });

  it('counts what each event costs besides its text, so tiny events cannot hold many times the budget', async () => {
    const { EVENT_OVERHEAD, EventBudget, SessionEventStore } = await import(
      '../../src/transports/session-event-store.js'
    );
    const budget = new EventBudget(100 * (EVENT_OVERHEAD + 2));
    const store = new SessionEventStore({ budget, maxEvents: 10_000 });
    for (let n = 0; n < 1_000; n++) store.append('s', '{}');
    // 1,000 two-byte messages would be 2 kB of text: the events themselves are what fills it.
    expect(store.size).toBe(100);
    expect(budget.bytes).toBe(100 * (EVENT_OVERHEAD + 2));
  });
});
