// The session lane (src/server/direct-session-call.ts) must answer exactly what the SDK's session
// transport answers, with the same events on the way. Each call is sent twice to a real bridge
// process over HTTP, in one initialize-era session: plainly (the lane takes it) and with an extra
// `_meta` key, which the SDK ignores and the lane refuses (so the SDK serves it). A raw HTTP client
// answers the server's own requests (roots, elicitation) and records every SSE event it receives.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawEvent, RawSession, sseEvents, SESSION_VERSION as VERSION } from '../helpers/raw-session.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';

const SDK_PATH = { 'example.com/path': 'sdk' };

/** A stream as a client compares it: event ids become "has an id", message ids are dropped. */
function shape(events: RawEvent[]) {
  return events.map(({ id, data }) => {
    const { id: _id, ...rest } = data ?? {};
    return { hasId: id !== undefined, ...(data ? { data: rest } : {}) };
  });
}

let dir: string;
const bridges: HttpBridge[] = [];
let echo: RawSession;
let ask: RawSession;
let conformance: RawSession;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-session-lane-'));
  const start = async (script: string, capabilities: object) => {
    const bridge = await startHttpBridge({ script: distPath(`test/servers/${script}`), args: [] });
    bridges.push(bridge);
    const session = new RawSession(bridge.url);
    await session.open(capabilities);
    return session;
  };
  [echo, ask, conformance] = await Promise.all([
    start('echo-server.js', {}),
    start('ask-server.js', { roots: {}, elicitation: {} }),
    start('conformance-server.js', {}),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([echo, ask, conformance].map((session) => session?.close()));
  await Promise.all(bridges.map((bridge) => bridge[Symbol.asyncDispose]()));
  rmSync(dir, { recursive: true, force: true });
});

/** One call both ways: the answers' heads and streams, made comparable. */
async function bothWays(session: RawSession, name: string, args: Record<string, unknown>, progress = false) {
  const run = async (extra: object) => {
    const meta = { ...extra, ...(progress ? { progressToken: 'p' } : {}) };
    const id = `${name}-${Object.keys(extra).length > 0 ? 'sdk' : 'lane'}-${Math.random()}`;
    // Roots are kept per session: forgotten before each call, so that both calls ask.
    await (await session.post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' })).text();
    const { response, events } = await session.request(id, 'tools/call', {
      name,
      arguments: args,
      ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
    });
    const answer = events.at(-1)?.data;
    expect(answer?.id).toBe(id);
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      session: response.headers.get('mcp-session-id'),
      events: shape(events),
    };
  };
  return { viaSdk: await run(SDK_PATH), viaLane: await run({}) };
}

describe('the session lane answers exactly what the SDK session transport answers', () => {
  const cases: Array<[string, () => RawSession, string, Record<string, unknown>, boolean?]> = [
    ['a plain result', () => echo, 'echo', { text: 'hi', times: 2 }],
    ['structured content', () => echo, 'add', { a: 2, b: 3 }],
    ['arguments the input schema refuses', () => echo, 'add', { a: 'two' }],
    ['a tool that throws', () => echo, 'fail', {}],
    ['progress notifications before the result', () => echo, 'slow', { ms: 20, steps: 3 }, true],
    ['the client roots, asked on the call stream', () => ask, 'client_roots', {}],
    ['two questions, answered by the client', () => ask, 'two_steps', { marker: 'MARKER' }],
    ['log messages at the session level', () => conformance, 'test_tool_with_logging', {}],
  ];
  it.each(cases)('%s', async (_label, session, name, args, progress) => {
    const marked = 'marker' in args ? { marker: join(dir, `${name}-${Math.random()}`) } : {};
    const { viaSdk, viaLane } = await bothWays(session(), name, { ...args, ...marked }, progress);
    expect(viaLane).toEqual(viaSdk);
    expect(viaSdk).toMatchObject({ status: 200, type: 'text/event-stream', session: session().id });
    // The priming event first: an id, no data, so that the client can resume from the start.
    expect(viaSdk.events[0]).toEqual({ hasId: true });
  });

  it('log messages below the level the session set are not sent, either way', async () => {
    const setLevel = async (level: string) =>
      (await conformance.request(`level-${level}`, 'logging/setLevel', { level })).events;
    await setLevel('warning');
    const quiet = await bothWays(conformance, 'test_tool_with_logging', {});
    expect(quiet.viaLane).toEqual(quiet.viaSdk);
    expect(JSON.stringify(quiet.viaLane.events)).not.toContain('notifications/message');
    await setLevel('info');
    const loud = await bothWays(conformance, 'test_tool_with_logging', {});
    expect(loud.viaLane).toEqual(loud.viaSdk);
    expect(JSON.stringify(loud.viaLane.events)).toContain('Tool processing data');
  });

  it('an unknown tool is left to the SDK: the same JSON-RPC error', async () => {
    const { viaSdk, viaLane } = await bothWays(echo, 'nope', {});
    expect(viaLane).toEqual(viaSdk);
    expect(JSON.stringify(viaLane.events)).toContain('-32602');
  });
});

describe('the streams the lane writes', () => {
  const waitFor = async (path: string) => {
    for (let i = 0; i < 300 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('notifications/cancelled aborts the call, whose stream then ends without an answer', async () => {
    const marker = join(dir, 'cancelled');
    const call = await echo.post({
      jsonrpc: '2.0',
      id: 'to-cancel',
      method: 'tools/call',
      params: { name: 'wait_for_abort', arguments: { marker } },
    });
    await waitFor(`${marker}.started`);
    const cancel = await echo.post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'to-cancel', reason: 'test' },
    });
    expect(cancel.status).toBe(202);
    const events: RawEvent[] = [];
    for await (const event of sseEvents(call)) events.push(event);
    expect(readFileSync(marker, 'utf8')).toBe('aborted');
    expect(events).toEqual([{ id: expect.any(String) }]);
  });

  it('a stream still connected cannot be taken over; once it breaks, the call resumes on a GET', async () => {
    const call = await echo.post({
      jsonrpc: '2.0',
      id: 'resumed',
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 600, steps: 3 }, _meta: { progressToken: 'r' } },
    });
    const reader = sseEvents(call);
    const priming = (await reader.next()).value as RawEvent;
    expect(priming).toEqual({ id: expect.any(String) });

    const taken = await echo.resume(String(priming.id));
    expect(taken.status).toBe(409);
    await taken.text();

    await reader.return(undefined);
    // The bridge sees the old stream close a moment later: until then a resume is still a conflict.
    let resumed = await echo.resume(String(priming.id));
    for (let attempt = 0; resumed.status === 409 && attempt < 100; attempt++) {
      await resumed.text();
      await new Promise((resolve) => setTimeout(resolve, 10));
      resumed = await echo.resume(String(priming.id));
    }
    expect(resumed.status).toBe(200);
    const events: RawEvent[] = [];
    for await (const event of sseEvents(resumed)) events.push(event);
    expect(events.map((event) => (event.data?.params as { progress?: number })?.progress)).toEqual([
      1,
      2,
      3,
      undefined,
    ]);
    expect(events.at(-1)?.data).toMatchObject({ id: 'resumed', result: { content: [{ text: 'done' }] } });
    // Every event has an id, in order: a client can resume from any of them.
    const ids = events.map((event) => Number(event.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    // After the end, resuming from the priming event replays the whole call and ends.
    const again = await echo.resume(String(priming.id));
    const replayed: RawEvent[] = [];
    for await (const event of sseEvents(again)) replayed.push(event);
    expect(replayed).toEqual(events);
  });

  it('ending the session aborts the calls the lane runs', async () => {
    const session = new RawSession(echo.url);
    await session.open({});
    const marker = join(dir, 'session-ended');
    const call = await session.post({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'wait_for_abort', arguments: { marker } },
    });
    await waitFor(`${marker}.started`);
    await session.close();
    const events: RawEvent[] = [];
    for await (const event of sseEvents(call)) events.push(event);
    await waitFor(marker);
    expect(readFileSync(marker, 'utf8')).toBe('aborted');
    expect(events.every((event) => event.data === undefined)).toBe(true);
  });
});

describe('which session requests the lane takes (in-process, on its own decision)', () => {
  const annotations = {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  };
  const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  async function openSession() {
    const { createServerFactory } = await import('../../src/server/create-server.js');
    const { LegacySessions } = await import('../../src/transports/legacy-sessions.js');
    const { MemoryResourceStore, silentLogger, ToolRegistry, textResult } = await import(
      '../../src/index.js'
    );
    const tool = (name: string, taskSupport?: 'optional') => ({
      name,
      description: name,
      inputSchema: { type: 'object', properties: {} },
      annotations,
      ...(taskSupport ? { taskSupport } : {}),
      invoke: async () => textResult('ok'),
    });
    const factory = createServerFactory({
      info: { name: 'pin', version: '1' },
      registry: () =>
        new ToolRegistry([{ source: 'pin', tools: [tool('plain'), tool('tasky', 'optional')] }]),
      resources: new MemoryResourceStore(),
      log: silentLogger,
      shutdown: new AbortController().signal,
    });
    const sessions = new LegacySessions(factory, { maxRequestBodySize: 1 << 20, lane: factory.sessionLane });
    const send = (body: unknown, headers: Record<string, string> = {}) =>
      sessions.handle(
        new Request('http://localhost/mcp', { method: 'POST', headers: { ...HEADERS, ...headers } }),
        body,
        { quotaKey: 'pin' },
      );
    const init = (await send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'pin', version: '1' } },
    })) as Response;
    await init.text();
    const session = {
      'mcp-session-id': String(init.headers.get('mcp-session-id')),
      'mcp-protocol-version': VERSION,
    };
    let next = 1;
    return {
      sessions,
      call: (params: object, headers: Record<string, string> = {}, shape?: (message: object) => unknown) => {
        const message = { jsonrpc: '2.0', id: next++, method: 'tools/call', params };
        return send(shape ? shape(message) : message, { ...session, ...headers });
      },
    };
  }

  it('takes a plain call and one with a progress token; leaves everything else to the SDK', async () => {
    const { sessions, call } = await openSession();
    try {
      const taken = async (answer: Promise<unknown>) => {
        const value = await answer;
        if (value instanceof Response) await value.text();
        return !(value instanceof Response);
      };
      expect(await taken(call({ name: 'plain', arguments: {} }))).toBe(true);
      expect(await taken(call({ name: 'plain', _meta: { progressToken: 1 } }))).toBe(true);
      expect(await taken(call({ name: 'plain', _meta: { 'example.com/x': 1 } }))).toBe(false);
      expect(await taken(call({ name: 'tasky' }))).toBe(false);
      expect(await taken(call({ name: 'nope' }))).toBe(false);
      expect(await taken(call({ name: 'plain', task: {} }))).toBe(false);
      expect(await taken(call({ name: 'plain' }, { accept: 'application/json' }))).toBe(false);
      expect(await taken(call({ name: 'plain' }, { 'mcp-protocol-version': '2025-06-18' }))).toBe(false);
      expect(await taken(call({ name: 'plain' }, {}, (message) => [message]))).toBe(false);
    } finally {
      await sessions.closeAll();
    }
  });
});

describe('two resumes of one lane stream (in-process)', () => {
  it('the stream stays with the first to open; the second ends at once rather than hang unwritten', async () => {
    const { createSessionLane } = await import('../../src/server/direct-session-call.js');
    const { SessionEventStore } = await import('../../src/transports/session-event-store.js');
    const { MemoryResourceStore, silentLogger, ToolRegistry, textResult } = await import(
      '../../src/index.js'
    );
    let finish = () => {};
    const registry = new ToolRegistry([
      {
        source: 'pin',
        tools: [
          {
            name: 'held',
            description: 'held',
            inputSchema: { type: 'object', properties: {} },
            annotations: {
              readOnlyHint: true,
              destructiveHint: false,
              idempotentHint: true,
              openWorldHint: false,
            },
            invoke: () => new Promise((resolve) => (finish = () => resolve(textResult('done')))),
          },
        ],
      },
    ]);
    const setup = {
      info: { name: 'pin', version: '1' },
      registry: () => registry,
      resources: new MemoryResourceStore(),
      log: silentLogger,
      shutdown: new AbortController().signal,
    };
    const server = {
      setNotificationHandler: () => {},
      getClientVersion: () => ({ name: 'pin', version: '1' }),
      getNegotiatedProtocolVersion: () => VERSION,
      getClientCapabilities: () => ({}),
      projectCallToolResult: (result: unknown) => result,
      notification: async () => {},
      request: async () => ({}),
    };
    const events = new SessionEventStore();
    const lane = createSessionLane(setup as never, {} as never, {
      server: server as never,
      events,
      sessionId: 's',
    });
    const sink = () => {
      const sink = {
        text: '',
        ended: false,
        gone: false,
        write(text: string) {
          sink.text += text;
        },
        end(text?: string) {
          sink.text += text ?? '';
          sink.ended = true;
        },
      };
      return sink;
    };
    const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION };
    const post = new Request('http://localhost/mcp', { method: 'POST', headers });
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'held', arguments: {} } };
    const first = sink();
    const answer = lane.take(post, body, undefined);
    answer?.open(first);
    // The priming event goes out alone once the call has been quiet a moment.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const primingId = /id: (\S+)/.exec(first.text)?.[1] as string;
    expect(events.streamOf(primingId)).toBeDefined();
    first.gone = true;

    const get = () =>
      lane.resume(
        new Request('http://localhost/mcp', { headers: { ...headers, 'last-event-id': primingId } }),
      ) as { open: (sink: unknown) => void };
    // Both GETs pass the conflict check before either opens.
    const [a, b] = [get(), get()];
    const [second, third] = [sink(), sink()];
    a.open(second);
    b.open(third);
    expect(third.ended).toBe(true);
    finish();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(second.ended).toBe(true);
    expect(second.text).toContain('"text":"done"');
    expect(third.text).toBe('');
    lane.closed();
  });
});
