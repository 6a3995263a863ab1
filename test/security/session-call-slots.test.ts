// `--max-calls-per-caller` bounds the calls one caller has running. In an initialize-era session a
// client that hangs up does not cancel its calls (the spec asks for notifications/cancelled), so
// its calls must keep their slots until they end: otherwise sending calls and hanging up starts
// unbounded work. Checked on both paths a session call can take: the session lane and the SDK's
// transport (an extra `_meta` key sends a call there).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionCalls } from '../../src/transports/session-calls.js';
import { modernFetch } from '../helpers/modern-request.js';
import { RawSession } from '../helpers/raw-session.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';

let bridge: HttpBridge;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-session-slots-'));
  bridge = await startHttpBridge({
    script: distPath('test/servers/auth-server.js'),
    args: ['notes', '--max-calls-per-caller', '2'],
  });
});

afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
});

const call = (id: string, name: string, args: object, meta: object) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) },
});

/** Polls until a call in `session` is accepted again (not 429); fails after ~4 s. */
async function accepted(session: RawSession): Promise<void> {
  for (let attempt = 0; attempt < 80; attempt++) {
    const reply = await session.post(call(`probe-${attempt}`, 'whoami', {}, {}));
    await reply.text();
    if (reply.status !== 429) return;
    await sleep(50);
  }
  throw new Error('the call slots were never given back');
}

// The two paths a session call can take: the lane, and the SDK's transport (an extra `_meta` key).
const PATHS: Array<[string, object]> = [
  ['the session lane', {}],
  ["the SDK's session transport", { 'example.com/path': 'sdk' }],
];

/** Posts a `wait` call, waits until its tool has started, and hangs up (the call runs on). */
async function startAndHangUp(session: RawSession, id: string, args: { marker: string }, meta: object) {
  const hangUp = new AbortController();
  const response = await session.post(call(id, 'wait', args, meta), {}, hangUp.signal);
  expect(response.status).toBe(200);
  while (!existsSync(`${args.marker}.started`)) await sleep(10);
  hangUp.abort();
}

async function cancel(session: RawSession, requestId: string): Promise<void> {
  const reply = await session.post({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId, reason: 'test' },
  });
  await reply.text();
}

describe('a request reusing the id of a call that runs', () => {
  // An answer to the reused id (a ping's) settled the call that held it and gave its slot back
  // while the tool ran on: a ping after each call ran any number of calls past the cap.
  it.each(PATHS)('%s: is refused, and the call keeps its slot', async (label, meta) => {
    const session = new RawSession(bridge.url);
    await session.open({});
    await accepted(session); // the calls of the case before have given their slots back
    const markers = [1, 2, 3].map((n) => join(dir, `reused-${label.replace(/\W/g, '')}-${n}`));
    for (const marker of markers.slice(0, 2)) {
      await startAndHangUp(session, marker, { marker }, meta);
      const ping = await session.post({ jsonrpc: '2.0', id: marker, method: 'ping' });
      const pingText = await ping.text();
      expect(ping.status, pingText).toBe(400);
      expect(pingText).toContain('is in use in this session');
    }
    // A batch giving one id twice is refused as well, before anything in it runs.
    const twice = await session.post([
      { jsonrpc: '2.0', id: 'twice', method: 'ping' },
      { jsonrpc: '2.0', id: 'twice', method: 'ping' },
    ]);
    expect(twice.status).toBe(400);
    await twice.text();
    // Both calls still hold their slots: a third is refused and never starts.
    const third = await session.post(call(markers[2] as string, 'wait', { marker: markers[2] }, meta));
    expect(third.status).toBe(429);
    await third.text();
    expect(existsSync(`${markers[2]}.started`)).toBe(false);
    await session.close();
  });
});

describe('session calls whose client hung up keep their call slots until they end', () => {
  it.each(PATHS)('%s', async (label, meta) => {
    const session = new RawSession(bridge.url);
    await session.open({});
    const markers = [1, 2, 3].map((n) => join(dir, `${label.replace(/\W/g, '')}-${n}`));
    for (const marker of markers.slice(0, 2)) await startAndHangUp(session, marker, { marker }, meta);
    // Both connections are closed; both calls still run: a third is refused and never starts.
    await sleep(100);
    const third = await session.post(call(markers[2] as string, 'wait', { marker: markers[2] }, meta));
    expect(third.status).toBe(429);
    await third.text();
    expect(existsSync(`${markers[2]}.started`)).toBe(false);

    // Cancelling one gives its slot back, and only its: one more call runs, a second is refused.
    await cancel(session, markers[0] as string);
    await accepted(session);
    await startAndHangUp(session, 'third', { marker: markers[2] as string }, meta);
    await sleep(100);
    const refused = await session.post(call('fourth', 'whoami', {}, {}));
    expect(refused.status).toBe(429);
    await refused.text();

    // Ending the session ends its calls and gives their slots back.
    await session.close();
    const next = new RawSession(bridge.url);
    await next.open({});
    await accepted(next);
    await next.close();
  });
});

describe('a cancelled call keeps its slot until its tool has ended', () => {
  // A tool that does not heed the abort runs on after a cancellation: giving its slot back at the
  // cancellation would let a caller run any number of calls at once by cancelling each one.
  it.each(PATHS)('%s', async (label, meta) => {
    const session = new RawSession(bridge.url);
    await session.open({});
    const markers = [1, 2].map((n) => join(dir, `ignoring-${label.replace(/\W/g, '')}-${n}`));
    for (const [index, marker] of markers.entries()) {
      const args = { marker, ignoreAbort: true, ms: index === 0 ? 1_500 : 60_000 };
      await startAndHangUp(session, marker, args, meta);
    }
    await cancel(session, markers[0] as string);
    await sleep(200);
    // The cancelled tool still runs: no slot is free yet.
    expect(existsSync(`${markers[0]}.done`)).toBe(false);
    const refused = await session.post(call('while-running', 'whoami', {}, {}));
    expect(refused.status).toBe(429);
    await refused.text();
    // Once it has ended, its slot is back.
    while (!existsSync(`${markers[0]}.done`)) await sleep(20);
    await accepted(session);
    await session.close();
  });
});

describe('a 2026-07-28 call whose client hung up', () => {
  // Hanging up cancels a 2026-07-28 call, but its slot stays taken until its tool has ended: given
  // back at the hang-up, a tool that ignores the abort let a caller run any number at once.
  it('keeps its slot until its tool has ended', async () => {
    const probe = new RawSession(bridge.url);
    await probe.open({});
    await accepted(probe); // the calls of the tests before have given their slots back
    await probe.close();
    const markers = [1, 2].map((n) => join(dir, `modern-hang-up-${n}`));
    for (const [index, marker] of markers.entries()) {
      const hangUp = new AbortController();
      const args = { marker, ignoreAbort: true, ms: index === 0 ? 1_500 : 60_000 };
      void modernFetch(bridge.url, 'tools/call', { name: 'wait', arguments: args }, { signal: hangUp.signal })
        .then((reply) => reply.text())
        .catch(() => {});
      while (!existsSync(`${marker}.started`)) await sleep(10);
      hangUp.abort();
    }
    await sleep(200);
    const refused = await modernFetch(bridge.url, 'tools/call', { name: 'whoami', arguments: {} });
    expect(refused.status).toBe(429);
    await refused.text();
    // Once the first has ended, its slot is back.
    while (!existsSync(`${markers[0]}.done`)) await sleep(20);
    let status = 429;
    for (let attempt = 0; attempt < 80 && status === 429; attempt++) {
      const reply = await modernFetch(bridge.url, 'tools/call', { name: 'whoami', arguments: {} });
      status = reply.status;
      await reply.text();
      if (status === 429) await sleep(50);
    }
    expect(status).toBe(200);
  });
});

describe('a reused request id never keeps call slots past its session', () => {
  it('each answer settles the oldest call of its id, and closing releases the rest', () => {
    const calls = new SessionCalls();
    const released: string[] = [];
    // One batch naming an id twice, then another call reusing it while the first run.
    calls.track(['a', 'a'], () => released.push('batch'));
    calls.track(['a'], () => released.push('later'));
    calls.answered('a');
    calls.answered('a');
    expect(released).toEqual(['batch']);
    calls.answered('a');
    expect(released).toEqual(['batch', 'later']);

    const refused = calls.track(['b'], () => released.push('refused'));
    calls.track(['b'], () => released.push('running'));
    calls.track(['c'], () => released.push('open'));
    refused();
    // The refused call's entry is gone: the answer to `b` settles the call still running.
    calls.answered('b');
    expect(released).toEqual(['batch', 'later', 'refused', 'running']);
    calls.forget();
    calls.forget();
    expect(released).toEqual(['batch', 'later', 'refused', 'running', 'open']);
  });
});
