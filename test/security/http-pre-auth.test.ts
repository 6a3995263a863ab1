// Class: nothing costly happens before authentication. Refused bodies are not read into memory,
// slow bodies and headers are cut at their deadline, connections and concurrent calls are capped,
// and the refusals are logged without flooding the log.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernRequest } from '../helpers/modern-request.js';
import { type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { AUTH_SERVER } from './helpers.js';
import { openSocket, outcome, postHead, rssOf } from './raw-http.js';

const TOKEN = 'pre-auth-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };
const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'bridge-pre-auth-'));

let bridge: HttpBridge;
beforeAll(async () => {
  bridge = await startHttpBridge({
    script: AUTH_SERVER,
    args: [
      'notes',
      '--auth-tokens-env',
      'TOKENS',
      '--body-timeout-ms',
      '1000',
      '--header-timeout-ms',
      '1000',
      '--max-connections',
      '60',
      // This file opens its connections from one address: only the cap of all of them is tested here.
      '--max-connections-per-address',
      '60',
      '--max-calls-per-caller',
      '2',
    ],
    env: { TOKENS: `${TOKEN} alice` },
  });
});
afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
});

async function stillServes(): Promise<void> {
  const reply = await modernRequest(
    bridge.url,
    'tools/call',
    { name: 'echo', arguments: { text: 'next' } },
    {
      headers: auth,
    },
  );
  expect(reply.json?.result?.content?.[0]?.text).toBe('next');
}

describe('a request is refused on its headers, before its body is read', () => {
  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer not-the-token-0123456789' }],
    ['a malformed Authorization header', { authorization: 'Basic YWxpY2U6c2VjcmV0' }],
  ])('%s: 401 while the 4 MiB body is still unsent', async (_label, headers) => {
    const socket = await openSocket(bridge.url);
    const result = outcome(socket);
    // Only the head and the first bytes: the answer must not wait for the rest.
    socket.write(postHead(bridge.url, 4 * MiB - 1024, headers as Record<string, string>));
    socket.write('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"');
    const answered = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\r\n\r\n')) resolve(text);
      });
    });
    expect(answered).toMatch(/^HTTP\/1\.1 401 /);
    expect(answered.toLowerCase()).toContain('www-authenticate: bearer');
    socket.destroy();
    await result;
    await stillServes();
  });

  it('50 unauthenticated 4 MiB bodies that never finish do not grow memory by 32 MiB', async () => {
    const pid = bridge.child.pid as number;
    const before = rssOf(pid);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const sockets = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const socket = await openSocket(bridge.url);
        socket.on('error', () => {});
        socket.write(postHead(bridge.url, 4 * MiB));
        // Nearly the whole body, never the end (the connection cap of this bridge is 60).
        for (let sent = 0; sent < 4 * MiB - 1024 - chunk.length; sent += chunk.length) {
          if (!socket.write(chunk)) {
            // The server may cut the connection at its body deadline: then there is no drain.
            await new Promise((resolve) => {
              socket.once('drain', resolve);
              socket.once('close', resolve);
            });
          }
          if (socket.destroyed) break;
        }
        return socket;
      }),
    );
    // The server reads what the kernel buffered a little later: take the highest of a few samples.
    let peak = rssOf(pid);
    for (let i = 0; i < 5; i++) {
      await sleep(100);
      peak = Math.max(peak, rssOf(pid));
    }
    const grown = peak - before;
    for (const socket of sockets) socket.destroy();
    expect(grown).toBeLessThan(32 * MiB);
    await stillServes();
  });
});

describe('slow clients are cut at their deadline', () => {
  it('a body that stops arriving: 408 and the connection closed', async () => {
    const socket = await openSocket(bridge.url);
    const result = outcome(socket);
    socket.write(postHead(bridge.url, 1000, auth));
    socket.write('{"jsonrpc":');
    const { text, closed } = await result;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toMatch(/did not arrive within 1000 ms/);
    expect(closed).toBe(true);
    await stillServes();
  });

  it('headers that stop arriving: 408 and the connection closed', async () => {
    const socket = await openSocket(bridge.url);
    const result = outcome(socket);
    socket.write(`POST /mcp HTTP/1.1\r\nHost: ${bridge.url.host}\r\nX-Slow: `);
    const { text, closed } = await result;
    expect(closed).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(bridge.stderr()).toMatch(/warning: http: refused \(slow headers\): from 127\.0\.0\.1/);
    await stillServes();
  });
});

describe('caps', () => {
  it('closes connections past --max-connections, logs it, and serves again once they go', async () => {
    const sockets = await Promise.all(Array.from({ length: 60 }, () => openSocket(bridge.url)));
    for (const socket of sockets) socket.on('error', () => {});
    const extra = await openSocket(bridge.url);
    const { closed, text } = await outcome(extra);
    expect(closed).toBe(true);
    expect(text).toBe('');
    for (const socket of sockets) socket.destroy();
    expect(bridge.stderr()).toMatch(/warning: http: refused \(connections\)/);
    // Node counts a closed socket a moment later: retry until the slot is free.
    for (let attempt = 0; ; attempt++) {
      try {
        await stillServes();
        break;
      } catch (error) {
        if (attempt > 40) throw error;
        await sleep(50);
      }
    }
  });

  it('refuses a call past --max-calls-per-caller without running it', async () => {
    const markers = [0, 1, 2].map((i) => join(dir, `call-${i}`));
    const controller = new AbortController();
    const running = markers.slice(0, 2).map((marker) =>
      modernRequest(
        bridge.url,
        'tools/call',
        { name: 'wait', arguments: { marker } },
        {
          headers: auth,
          signal: controller.signal,
        },
      ).catch(() => undefined),
    );
    while (!markers.slice(0, 2).every((marker) => existsSync(`${marker}.started`))) await sleep(20);
    const third = await modernRequest(
      bridge.url,
      'tools/call',
      { name: 'wait', arguments: { marker: markers[2] } },
      {
        headers: auth,
      },
    );
    expect(third.status).toBe(429);
    expect(third.json?.error?.message).toMatch(/exceed the 2 calls one caller may run at once/);
    // The world: the refused call never started.
    expect(existsSync(`${markers[2]}.started`)).toBe(false);
    controller.abort();
    await Promise.all(running);
    // Slots are given back when the calls end.
    for (let attempt = 0; ; attempt++) {
      const reply = await modernRequest(
        bridge.url,
        'tools/call',
        { name: 'echo', arguments: { text: 'next' } },
        {
          headers: auth,
        },
      );
      if (reply.status !== 429) {
        expect(reply.json?.result?.content?.[0]?.text).toBe('next');
        break;
      }
      if (attempt > 40) throw new Error('the call slots were never given back');
      await sleep(50);
    }
  });
});

describe('failed authentication is logged at warning, rate-limited', () => {
  it('logs at most one line per 10 s however many tokens fail, naming the peer', async () => {
    for (let i = 0; i < 30; i++) {
      await modernRequest(
        bridge.url,
        'tools/list',
        {},
        { headers: { authorization: `Bearer guess-${i}-0123456789` } },
      );
    }
    // This file refused well over 80 requests for their credentials within a few seconds.
    const lines = bridge
      .stderr()
      .split('\n')
      .filter((line) => line.includes('refused (authentication)'));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(lines[0]).toMatch(
      /^bridge warning: http: refused \(authentication\): POST from 127\.0\.0\.1 \(401\)/,
    );
    await stillServes();
  });
});
