// Class: one client cannot hold every connection. Connections are capped per peer address (what
// there is to count by before a request is authenticated), streams without an end of their own
// (listen, initialize-era GET) per caller, and such streams end after a lifetime so that clients
// open them again. Refusals are cheap (503 or 429 with Retry-After) and logged at most every 10 s.
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, modernFetch, modernRequest } from '../helpers/modern-request.js';
import { SESSION_VERSION, sseEvents } from '../helpers/raw-session.js';
import { type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { AUTH_SERVER } from './helpers.js';
import { outcome, postHead } from './raw-http.js';

const ALICE = 'quota-alice-0123456789abcdef';
const CAROL = 'quota-carol-0123456789abcdef';
const TOKENS = `${ALICE} alice read,write; ${CAROL} carol read`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
// Linux routes all of 127.0.0.0/8 to loopback: another source address is another peer.
const OTHER_ADDRESS = '127.0.0.20';

/** A raw connection to `url` from `localAddress`. */
function socketFrom(url: URL, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(url.port), host: url.hostname, localAddress }, () =>
      resolve(socket),
    );
    socket.once('error', reject);
  });
}

/**
 * `count` connections from `localAddress`, each sending the start of a request's headers and no
 * more; half a second later, each with whether the server has closed it.
 */
async function slowHeaders(url: URL, localAddress: string, count: number) {
  const held = await Promise.all(
    Array.from({ length: count }, async () => {
      const socket = await socketFrom(url, localAddress);
      const result = outcome(socket);
      socket.write(`POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\n`);
      return { socket, result, closed: false };
    }),
  );
  for (const one of held) void one.result.then(() => (one.closed = true));
  await sleep(500);
  return held;
}

/** A 2026-07-28 `tools/call` of `echo` sent from `localAddress`, for the status and the text it gets back. */
function echoFrom(url: URL, localAddress: string, text: string): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { text },
      _meta: envelope({}, 'quota'),
    },
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          ...bearer(ALICE),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'echo',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens a 2026-07-28 listen stream for tool-list changes. */
function listen(url: URL, token: string, id: number, signal?: AbortSignal): Promise<Response> {
  const notifications = { toolsListChanged: true };
  return modernFetch(
    url,
    'subscriptions/listen',
    { notifications },
    { headers: bearer(token), id, ...(signal ? { signal } : {}) },
  );
}

/** Every event of a stream until it ends, or `undefined` if it is still open after `ms`. */
async function eventsUntilEnd(response: Response, ms: number) {
  const events: Array<Record<string, unknown> | undefined> = [];
  const read = (async () => {
    for await (const event of sseEvents(response)) events.push(event.data);
    return events;
  })();
  return Promise.race([read, sleep(ms).then(() => undefined)]);
}

describe('connections per address', () => {
  let bridge: HttpBridge;
  beforeAll(async () => {
    bridge = await startHttpBridge({
      script: AUTH_SERVER,
      // No --max-connections-per-address: its default is a quarter of --max-connections, 16.
      args: ['notes', '--auth-tokens-env', 'TOKENS', '--max-connections', '64'],
      env: { TOKENS },
    });
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
  });

  it('one address sending slow headers on 70 connections holds 16; everyone else is served', async () => {
    const attacker = await slowHeaders(bridge.url, OTHER_ADDRESS, 70);
    expect(attacker.filter((held) => !held.closed)).toHaveLength(16);
    // Another address (and so another caller) is served at once, more than once.
    for (const text of ['first', 'second']) {
      const reply = await modernRequest(
        bridge.url,
        'tools/call',
        { name: 'echo', arguments: { text } },
        {
          headers: bearer(ALICE),
        },
      );
      expect(reply.json?.result?.content?.[0]?.text).toBe(text);
    }
    // A refused connection is told why, before it sends anything, and closed.
    const extra = await socketFrom(bridge.url, OTHER_ADDRESS);
    const refused = await outcome(extra);
    expect(refused.closed).toBe(true);
    expect(refused.text).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.text.toLowerCase()).toContain('retry-after: 5');
    expect(refused.text).toContain('16 connections from this address are open already');
    const lines = bridge
      .stderr()
      .split('\n')
      .filter((line) => line.includes('refused (connections per address)'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`a connection from ${OTHER_ADDRESS}: 16 from it are open`);

    // The address gets its connections back as they close.
    for (const held of attacker) held.socket.destroy();
    for (let attempt = 0; ; attempt++) {
      const reply = await echoFrom(bridge.url, OTHER_ADDRESS, 'back').catch(() => undefined);
      if (reply?.status === 200) {
        expect(reply.body).toContain('back');
        break;
      }
      if (attempt > 40) throw new Error(`${OTHER_ADDRESS} was never served again`);
      await sleep(50);
    }
  });
});

describe('streams per caller, and their lifetime', () => {
  let bridge: HttpBridge;
  beforeAll(async () => {
    bridge = await startHttpBridge({
      script: AUTH_SERVER,
      args: [
        'notes',
        '--auth-tokens-env',
        'TOKENS',
        '--max-connections',
        '64',
        '--max-connections-per-address',
        '64',
        '--max-streams-per-caller',
        '8',
        '--stream-lifetime-ms',
        '1500',
      ],
      env: { TOKENS },
    });
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
  });

  it('a read-only caller holds at most 8 listen streams; they end after their lifetime and can be opened again', async () => {
    const controller = new AbortController();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => listen(bridge.url, CAROL, i + 1, controller.signal)),
    );
    const opened = answers.filter((response) => response.status === 200);
    const refused = answers.filter((response) => response.status === 429);
    expect(opened).toHaveLength(8);
    expect(refused).toHaveLength(12);
    expect(refused[0]?.headers.get('retry-after')).toBe('5');
    const answer = (await refused[0]?.json()) as { error?: { message?: string } };
    expect(answer.error?.message).toMatch(
      /exceed the 8 listen, GET or tasks\/result streams one caller may hold open \(8 open\)/,
    );
    expect(bridge.stderr()).toMatch(
      /warning: http: refused \(streams per caller\): auth:carol over 8 open streams/,
    );

    // Another caller lists tools and opens a stream of its own meanwhile.
    const list = await modernRequest(bridge.url, 'tools/list', {}, { headers: bearer(ALICE) });
    expect(list.status).toBe(200);
    const own = await listen(bridge.url, ALICE, 100, controller.signal);
    expect(own.status).toBe(200);

    // Each stream ends by itself, with the listen request's result: the spec's graceful close.
    const ended = await Promise.all(opened.map((response) => eventsUntilEnd(response, 5_000)));
    for (const events of ended) {
      expect(events).toBeDefined();
      const last = events?.at(-1);
      expect(last).toMatchObject({
        jsonrpc: '2.0',
        id: expect.any(Number),
        result: { resultType: 'complete' },
      });
      expect(last?.result).toEqual({
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/subscriptionId': last?.id },
      });
    }
    // Their slots are free again.
    const again = await listen(bridge.url, CAROL, 200, controller.signal);
    expect(again.status).toBe(200);
    controller.abort();
  });

  it('an initialize-era GET stream ends after its lifetime, and the session opens another', async () => {
    const headers = {
      ...bearer(ALICE),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': SESSION_VERSION,
    };
    const init = await fetch(bridge.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: SESSION_VERSION,
          capabilities: {},
          clientInfo: { name: 'q', version: '1' },
        },
      }),
    });
    const session = init.headers.get('mcp-session-id') as string;
    await init.text();
    const inSession = { ...headers, 'mcp-session-id': session };
    const initialized = await fetch(bridge.url, {
      method: 'POST',
      headers: inSession,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    await initialized.text();

    // Timed from the request: the head of a stream leaves with its first bytes.
    const started = Date.now();
    const stream = await fetch(bridge.url, { headers: inSession });
    expect(stream.status).toBe(200);
    // A clean end (the body completes), not a cut connection: reading it does not throw.
    expect(await eventsUntilEnd(stream, 5_000)).toBeDefined();
    expect(Date.now() - started).toBeGreaterThan(1_000);
    // The session let go of its stream: a new one is not refused as a second stream (409).
    const controller = new AbortController();
    const next = await fetch(bridge.url, { headers: inSession, signal: controller.signal });
    expect(next.status).toBe(200);
    controller.abort();
  });
});

describe('connections from a trusted proxy', () => {
  const PROXY = '127.0.0.21';
  let bridge: HttpBridge;
  beforeAll(async () => {
    bridge = await startHttpBridge({
      script: AUTH_SERVER,
      // 16 connections per address by default; every user behind the proxy arrives from its address.
      args: [
        'notes',
        '--trust-identity-header',
        'X-Forwarded-User',
        '--trusted-proxy',
        PROXY,
        '--max-connections',
        '64',
      ],
    });
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
  });

  /** A whoami call for `user`, written on a raw keep-alive connection from `address`. */
  async function whoamiFrom(address: string, user: string) {
    const socket = await socketFrom(bridge.url, address);
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('auth:')) resolve(text);
      });
      socket.once('close', () => resolve(text));
    });
    socket.on('error', () => {});
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'whoami',
        arguments: {},
        _meta: envelope({}, 'quota'),
      },
    });
    socket.write(
      postHead(bridge.url, Buffer.byteLength(body), {
        'X-Forwarded-User': user,
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'whoami',
      }) + body,
    );
    return { socket, answer };
  }

  it('serves 40 users on 40 connections from the proxy; other addresses keep their cap', async () => {
    const users = await Promise.all(
      Array.from({ length: 40 }, (_, index) => whoamiFrom(PROXY, `user${index}`)),
    );
    const answers = await Promise.all(users.map((user) => user.answer));
    answers.forEach((text, index) => {
      expect(text).toMatch(/^HTTP\/1\.1 200 /);
      expect(text).toContain(`auth:user${index}`);
    });
    // Still open (keep-alive), all 40 at once.
    expect(users.filter((user) => !user.socket.destroyed)).toHaveLength(40);

    // Anyone else is held to 16 connections, as without a proxy.
    const others = await slowHeaders(bridge.url, OTHER_ADDRESS, 20);
    expect(others.filter((held) => !held.closed)).toHaveLength(16);
    for (const { socket } of [...users, ...others]) socket.destroy();
  });
});
