// Class: initialize-era sessions belong to the caller that opened them, and one caller cannot
// evict another's. Each row is an attempt on someone else's session; the world is whether the
// owner's session still works afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { AUTH_SERVER, connectWithHeaders } from './helpers.js';

const ALICE = 'alice-session-token-0123456789';
const BOB = 'bob-session-token-0123456789';
const MALLORY = 'mallory-session-token-0123456789';

let bridge: HttpBridge;
beforeAll(async () => {
  bridge = await startHttpBridge({
    script: AUTH_SERVER,
    args: ['notes', '--auth-tokens-env', 'TOKENS'],
    env: { TOKENS: `${ALICE} alice;${BOB} bob;${MALLORY} mallory` },
  });
});
afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Opens a session with a raw `initialize`; returns its id. */
async function initialize(token: string): Promise<string> {
  const response = await fetch(bridge.url, {
    method: 'POST',
    headers: { ...HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (!id) throw new Error(`initialize answered ${response.status} without a session id`);
  return id;
}

/** A `tools/call whoami` on session `id` with `token`: the HTTP status and the caller it ran as. */
async function whoami(id: string, token: string): Promise<{ status: number; caller?: string }> {
  const response = await fetch(bridge.url, {
    method: 'POST',
    headers: {
      ...HEADERS,
      authorization: `Bearer ${token}`,
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {} },
    }),
  });
  const text = await response.text();
  const caller = /"text":"([^"]+)"/.exec(text)?.[1];
  return { status: response.status, ...(caller ? { caller } : {}) };
}

describe('a session belongs to the caller that opened it', () => {
  it.each([
    ['another subject presents the id before the owner uses it', BOB],
    ['another subject presents the id after the owner used it', MALLORY],
  ])('%s: 404, as for an unknown session', async (label, intruder) => {
    const id = await initialize(ALICE);
    if (label.includes('after')) expect((await whoami(id, ALICE)).caller).toBe('auth:alice');
    const attempt = await whoami(id, intruder);
    expect(attempt.status).toBe(404);
    expect(attempt.caller).toBeUndefined();
    // The owner's session is untouched.
    expect(await whoami(id, ALICE)).toEqual({ status: 200, caller: 'auth:alice' });
  });

  it('a real v1 client keeps its session while another subject tries it', async () => {
    await using alice = await connectWithHeaders('v1', bridge.url, { authorization: `Bearer ${ALICE}` });
    const id = alice.sessionId() as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await whoami(id, BOB)).status).toBe(404);
    expect((await alice.callTool('whoami')).content[0]?.text).toBe('auth:alice');
  });
});

describe('one caller opening sessions in a loop evicts only its own', () => {
  it('1,000 initialize from one token leave another subject’s live session working', async () => {
    await using alice = await connectWithHeaders('v1', bridge.url, { authorization: `Bearer ${ALICE}` });
    expect((await alice.callTool('whoami')).content[0]?.text).toBe('auth:alice');
    const bobSession = await initialize(BOB);

    const opened: string[] = [];
    for (let i = 0; i < 1_000; i++) opened.push(await initialize(MALLORY));

    // The others' sessions: both alive.
    expect((await alice.callTool('whoami')).content[0]?.text).toBe('auth:alice');
    expect(await whoami(bobSession, BOB)).toEqual({ status: 200, caller: 'auth:bob' });
    // The flooder's own: the newest live, the oldest closed to make room (100 per caller by default).
    expect((await whoami(opened.at(-1) as string, MALLORY)).status).toBe(200);
    expect((await whoami(opened[0] as string, MALLORY)).status).toBe(404);
    expect((await whoami(opened[899] as string, MALLORY)).status).toBe(404);
    expect((await whoami(opened[900] as string, MALLORY)).status).toBe(200);
  }, 120_000);
});

describe('past the global session cap, the biggest holder gives up its idlest session', () => {
  // In-process, with caps small enough to reach: 4 sessions in all, 3 per caller.
  async function sessions() {
    const { createServerFactory } = await import('../../src/server/create-server.js');
    const { LegacySessions } = await import('../../src/transports/legacy-sessions.js');
    const { MemoryResourceStore, silentLogger, ToolRegistry } = await import('../../src/index.js');
    const factory = createServerFactory({
      info: { name: 'fair', version: '1' },
      registry: () => new ToolRegistry([]),
      resources: new MemoryResourceStore(),
      log: silentLogger,
      shutdown: new AbortController().signal,
    });
    return new LegacySessions(factory, { maxSessions: 4, maxPerCaller: 3, maxRequestBodySize: 1 << 20 });
  }
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const open = async (store: Awaited<ReturnType<typeof sessions>>, quotaKey: string) => {
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...HEADERS },
      body: JSON.stringify(body),
    });
    const response = (await store.handle(request, body, { quotaKey })) as Response;
    await response.text();
    return response.headers.get('mcp-session-id') as string;
  };
  const alive = async (store: Awaited<ReturnType<typeof sessions>>, id: string) => {
    const ping = { jsonrpc: '2.0', id: 9, method: 'ping' };
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(ping),
    });
    const response = (await store.handle(request, ping, { quotaKey: 'probe' })) as Response;
    await response.text();
    return response.status === 200;
  };

  it('a newcomer at the cap closes a session of the caller holding the most, never the single one', async () => {
    const store = await sessions();
    try {
      const carol = await open(store, 'address:carol');
      const flood = [await open(store, 'address:mallory'), await open(store, 'address:mallory')];
      const dave = await open(store, 'address:dave');
      expect(store.size).toBe(4);
      // Erin arrives at the cap: mallory (2 sessions) gives up its idlest, not carol or dave.
      const erin = await open(store, 'address:erin');
      expect(store.size).toBe(4);
      expect(await alive(store, carol)).toBe(true);
      expect(await alive(store, dave)).toBe(true);
      expect(await alive(store, erin)).toBe(true);
      expect(await alive(store, flood[0] as string)).toBe(false);
      expect(await alive(store, flood[1] as string)).toBe(true);
    } finally {
      await store.closeAll();
    }
  });
});
