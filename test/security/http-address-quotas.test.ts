// An anonymous client counts against its peer address however many initialize-era sessions it
// opens: tasks running, bytes of paged output (the calls cap already did). What it creates still
// belongs to the session that created it, and closing a session cancels its tasks. Authenticated
// callers count by identity. Driven over real HTTP from several loopback source addresses against
// the real command line and a real upstream that shows what is running.
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MISSING_BINARIES, startRedis, type TestRedis } from '../helpers/deployment.js';
import { envelope } from '../helpers/modern-request.js';
import { BRIDGE_BIN, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { eventually } from '../tasks/helpers.js';

const ALICE = 'alice-0123456789abcdef';
const BOB = 'bob-0123456789abcdef';
const HOUR = 3_600_000;
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const PAGE_URI = /bridge:\/\/output\/[A-Za-z0-9_-]+\/page\/2/;

/** The API behind the bridge: `/slow` answers when the client gives up (or after 10 min), `/big` a long text. */
interface Upstream {
  url: string;
  /** `/slow` requests under way, by their `tag`. */
  running(tag: string): number;
  close(): Promise<void>;
}

async function startUpstream(): Promise<Upstream> {
  const running = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    if (url.pathname === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(Number(url.searchParams.get('n'))));
      return;
    }
    const tag = url.searchParams.get('tag') ?? '';
    running.set(tag, (running.get(tag) ?? 0) + 1);
    const timer = setTimeout(() => res.end('{}'), 600_000);
    res.once('close', () => {
      clearTimeout(timer);
      running.set(tag, (running.get(tag) ?? 1) - 1);
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    running: (tag) => running.get(tag) ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A config serving the upstream's operations, `slow` allowed to run as a task. */
function writeConfig(dir: string, upstream: string): string {
  writeFileSync(
    join(dir, 'spec.yaml'),
    `openapi: 3.0.0
info: { title: quotas, version: '1' }
servers: [{ url: '${upstream}' }]
paths:
  /slow:
    get:
      operationId: slow
      parameters: [{ name: tag, in: query, schema: { type: string } }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: object } } } } }
  /big:
    get:
      operationId: big
      parameters: [{ name: n, in: query, schema: { type: integer } }]
      responses: { '200': { description: ok, content: { text/plain: { schema: { type: string } } } } }
`,
  );
  const config = join(dir, 'bridge.yaml');
  writeFileSync(
    config,
    `sources:
  - kind: openapi
    options: { spec: ./spec.yaml }
    tools:
      slow: { taskSupport: optional }
`,
  );
  return config;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json?: { result?: Record<string, unknown>; error?: { code: number; message: string } };
  text: string;
}

/** One HTTP request from `localAddress` (a loopback address of its own: a peer of its own). */
function send(
  url: URL,
  localAddress: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: options.method ?? 'POST',
        localAddress,
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        res.once('end', () => {
          const data = text.startsWith('{') ? text : [...text.matchAll(/^data: (.*)$/gm)].at(-1)?.[1];
          let json: Reply['json'];
          try {
            json = data ? JSON.parse(data) : undefined;
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, ...(json ? { json } : {}) });
        });
      },
    );
    req.once('error', reject);
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

/** An initialize-era session opened from `localAddress` (with a bearer token when given). */
async function openSession(url: URL, localAddress: string, token?: string) {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const init = await send(url, localAddress, {
    headers: auth,
    body: {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'quota', version: '1' },
      },
    },
  });
  const id = String(init.headers['mcp-session-id']);
  const headers = { ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
  const rpc = (method: string, params: object, rpcId: number | undefined = 1) =>
    send(url, localAddress, {
      headers,
      body: { jsonrpc: '2.0', ...(rpcId === undefined ? {} : { id: rpcId }), method, params },
    });
  await rpc('notifications/initialized', {}, undefined);
  return {
    id,
    /** Calls `slow` as a task (TTL one hour); the task id, or the JSON-RPC error. */
    async startSlow(
      tag: string,
      rpcId: number,
    ): Promise<{ taskId: string } | { error: { code: number; message: string } }> {
      const reply = await rpc('tools/call', { name: 'slow', arguments: { tag }, task: { ttl: HOUR } }, rpcId);
      const taskId = (reply.json?.result?.task as { taskId?: string } | undefined)?.taskId;
      return taskId ? { taskId } : { error: reply.json?.error ?? { code: 0, message: reply.text } };
    },
    /** Calls `big` and returns the URI of the output's second page. */
    async bigOutput(n: number) {
      const reply = await rpc('tools/call', { name: 'big', arguments: { n } });
      const uri = PAGE_URI.exec(reply.text)?.[0];
      if (!uri) throw new Error(`no page link in ${reply.text.slice(0, 300)}`);
      return uri;
    },
    /** Whether the session can read `uri`. */
    async reads(uri: string) {
      const reply = await rpc('resources/read', { uri });
      return Array.isArray(reply.json?.result?.contents);
    },
    taskStatus: async (taskId: string) =>
      (await rpc('tasks/get', { taskId })).json?.result?.status as string | undefined,
    cancel: (taskId: string) => rpc('tasks/cancel', { taskId }),
    close: () => send(url, localAddress, { method: 'DELETE', headers }),
  };
}

/** `perSession` task calls of `slow` at once in each of `sessions` sessions from `address`. */
async function fillSessions(url: URL, address: string, sessions: number, perSession: number, tag: string) {
  const opened = await Promise.all(Array.from({ length: sessions }, () => openSession(url, address)));
  const outcomes = await Promise.all(
    opened.flatMap((session) =>
      Array.from({ length: perSession }, (_, index) => session.startSlow(tag, index + 1)),
    ),
  );
  return {
    sessions: opened,
    started: outcomes.filter((outcome) => 'taskId' in outcome).length,
    refusals: outcomes.flatMap((outcome) => ('error' in outcome ? [outcome.error] : [])),
  };
}

/** A 2026-07-28 `tools/call` of `slow` from `address`, which the bridge makes a task. */
function modernSlow(url: URL, address: string, tag: string) {
  return send(url, address, {
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'slow' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'slow',
        arguments: { tag },
        _meta: envelope(TASKS),
      },
    },
  });
}

let upstream: Upstream;
let dir: string;
let config: string;
beforeAll(async () => {
  upstream = await startUpstream();
  dir = mkdtempSync(join(tmpdir(), 'bridge-quotas-'));
  config = writeConfig(dir, upstream.url);
});
afterAll(async () => {
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

const serveConfig = (...flags: string[]) =>
  startHttpBridge({ script: BRIDGE_BIN, args: ['serve', config, '--no-watch', ...flags] });

describe('anonymous sessions count against their address (memory stores)', () => {
  let bridge: HttpBridge;
  beforeAll(async () => {
    bridge = await serveConfig();
  });
  afterAll(async () => bridge?.[Symbol.asyncDispose]());

  it('holds every session of one address to 32 running tasks; another address still gets its own', async () => {
    const flood = await fillSessions(bridge.url, '127.0.0.2', 3, 16, 'flood');
    expect(flood.started).toBe(32);
    expect(flood.refusals).toHaveLength(16);
    expect(flood.refusals[0]?.code).toBe(-32603);
    expect(flood.refusals[0]?.message).toContain('already has 32 tasks running here');
    await eventually(() => (upstream.running('flood') === 32 ? true : undefined));

    const other = await openSession(bridge.url, '127.0.0.3');
    expect(await other.startSlow('other', 1)).toHaveProperty('taskId');
    await eventually(() => (upstream.running('other') === 1 ? true : undefined));
    await sleep(200);
    expect(upstream.running('flood')).toBe(32);
    await Promise.all([...flood.sessions, other].map((session) => session.close()));
  });

  it('counts anonymous 2026-07-28 requests by address, not as one caller shared by all', async () => {
    const replies = await Promise.all(
      Array.from({ length: 33 }, () => modernSlow(bridge.url, '127.0.0.4', 'modern')),
    );
    expect(replies.filter((reply) => reply.json?.result?.resultType === 'task')).toHaveLength(32);
    expect(replies.filter((reply) => reply.json?.error?.code === -32603)).toHaveLength(1);
    await eventually(() => (upstream.running('modern') === 32 ? true : undefined));

    const other = await modernSlow(bridge.url, '127.0.0.5', 'modern-other');
    expect(other.json?.result?.resultType, other.text).toBe('task');
    await eventually(() => (upstream.running('modern-other') === 1 ? true : undefined));
    // Anonymous tasks are cancelled by presenting their ids.
    for (const reply of [...replies, other]) {
      const taskId = reply.json?.result?.taskId;
      if (typeof taskId !== 'string') continue;
      await send(bridge.url, '127.0.0.4', {
        headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tasks/cancel', 'mcp-name': taskId },
        body: { jsonrpc: '2.0', id: 1, method: 'tasks/cancel', params: { taskId, _meta: envelope(TASKS) } },
      });
    }
    await eventually(() =>
      upstream.running('modern') + upstream.running('modern-other') === 0 ? true : undefined,
    );
  });

  it('cancels the tasks of a closed session: their work stops and the address has its places back', async () => {
    const first = await openSession(bridge.url, '127.0.0.6');
    const started = await Promise.all(Array.from({ length: 32 }, (_, i) => first.startSlow('closed', i + 1)));
    expect(started.every((outcome) => 'taskId' in outcome)).toBe(true);
    await eventually(() => (upstream.running('closed') === 32 ? true : undefined));
    const second = await openSession(bridge.url, '127.0.0.6');
    expect(await second.startSlow('after', 1)).toMatchObject({ error: { code: -32603 } });

    expect((await first.close()).status).toBe(200);
    await eventually(() => (upstream.running('closed') === 0 ? true : undefined));
    expect(await second.startSlow('after', 2)).toHaveProperty('taskId');
    await eventually(() => (upstream.running('after') === 1 ? true : undefined));
    await second.close();
    await eventually(() => (upstream.running('after') === 0 ? true : undefined));
  });

  it('keeps another address’s page while one address makes long outputs in 30 sessions', async () => {
    const victim = await openSession(bridge.url, '127.0.0.7');
    const kept = await victim.bigOutput(3_000_000);
    expect(await victim.reads(kept)).toBe(true);

    const pages: Array<{ session: Awaited<ReturnType<typeof openSession>>; uri: string }> = [];
    for (let i = 0; i < 30; i++) {
      const session = await openSession(bridge.url, '127.0.0.8');
      pages.push({ session, uri: await session.bigOutput(2_500_000) });
    }
    expect(await victim.reads(kept)).toBe(true);
    // The flooding address lost its own oldest pages (16 MiB is its share), and kept its newest.
    const first = pages[0] as (typeof pages)[number];
    const last = pages[29] as (typeof pages)[number];
    expect(await first.session.reads(first.uri)).toBe(false);
    expect(await last.session.reads(last.uri)).toBe(true);
    // Still each session's own: another session of the same address cannot read it.
    expect(await first.session.reads(last.uri)).toBe(false);
  });
});

describe('a session evicted to make room', () => {
  it('has its tasks cancelled like a session closed by its client', async () => {
    await using bridge = await serveConfig('--max-sessions-per-caller', '1');
    const first = await openSession(bridge.url, '127.0.0.9');
    expect(await first.startSlow('evicted', 1)).toHaveProperty('taskId');
    await eventually(() => (upstream.running('evicted') === 1 ? true : undefined));
    // The address's next session closes its idlest one.
    const second = await openSession(bridge.url, '127.0.0.9');
    await eventually(() => (upstream.running('evicted') === 0 ? true : undefined));
    expect((await first.startSlow('evicted', 2)) as { error?: unknown }).toHaveProperty('error');
    await second.close();
  });
});

describe('authenticated callers count by identity, whatever their address', () => {
  let bridge: HttpBridge;
  beforeAll(async () => {
    bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['serve', config, '--no-watch', '--auth-tokens-env', 'QUOTA_TOKENS'],
      env: { QUOTA_TOKENS: `${ALICE} alice *\n${BOB} bob *` },
    });
  });
  afterAll(async () => bridge?.[Symbol.asyncDispose]());

  it('gives two callers on one address 32 places each, and their tasks outlive the session', async () => {
    const alice = await Promise.all([1, 2].map(() => openSession(bridge.url, '127.0.0.10', ALICE)));
    const outcomes = await Promise.all(
      alice.flatMap((session) => Array.from({ length: 20 }, (_, i) => session.startSlow('alice', i + 1))),
    );
    expect(outcomes.filter((outcome) => 'taskId' in outcome)).toHaveLength(32);
    const bob = await openSession(bridge.url, '127.0.0.10', BOB);
    const bobs = await Promise.all(Array.from({ length: 10 }, (_, i) => bob.startSlow('bob', i + 1)));
    expect(bobs.every((outcome) => 'taskId' in outcome)).toBe(true);
    await eventually(() =>
      upstream.running('alice') === 32 && upstream.running('bob') === 10 ? true : undefined,
    );

    // Alice's tasks are hers, not her sessions': closing them stops nothing.
    await Promise.all(alice.map((session) => session.close()));
    await sleep(300);
    expect(upstream.running('alice')).toBe(32);
    const again = await openSession(bridge.url, '127.0.0.11', ALICE);
    const taskIds = outcomes.flatMap((outcome) => ('taskId' in outcome ? [outcome.taskId] : []));
    expect(await again.taskStatus(taskIds[0] as string)).toBe('working');
    for (const taskId of taskIds) await again.cancel(taskId);
    for (const outcome of bobs) if ('taskId' in outcome) await bob.cancel(outcome.taskId);
    await eventually(() => (upstream.running('alice') + upstream.running('bob') === 0 ? true : undefined));
  });
});

describe.skipIf(MISSING_BINARIES)('anonymous sessions count against their address (Redis stores)', () => {
  let redis: TestRedis;
  let bridge: HttpBridge;
  beforeAll(async () => {
    redis = await startRedis();
    bridge = await serveConfig('--store', redis.url);
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
    await redis?.[Symbol.asyncDispose]();
  });

  it('holds the sessions of one address to 32 running tasks, and cancels a closed session’s', async () => {
    const flood = await fillSessions(bridge.url, '127.0.0.12', 3, 16, 'redis-flood');
    expect(flood.started).toBe(32);
    expect(flood.refusals).toHaveLength(16);
    await eventually(() => (upstream.running('redis-flood') === 32 ? true : undefined));
    const other = await openSession(bridge.url, '127.0.0.13');
    expect(await other.startSlow('redis-other', 1)).toHaveProperty('taskId');

    await Promise.all(flood.sessions.map((session) => session.close()));
    await eventually(() => (upstream.running('redis-flood') === 0 ? true : undefined));
    await other.close();
    await eventually(() => (upstream.running('redis-other') === 0 ? true : undefined));
  });

  it('keeps one address’s pages within its quota, whatever number of sessions wrote them', async () => {
    const victim = await openSession(bridge.url, '127.0.0.14');
    const kept = await victim.bigOutput(3_000_000);
    const pages: Array<{ session: Awaited<ReturnType<typeof openSession>>; uri: string }> = [];
    for (let i = 0; i < 10; i++) {
      const session = await openSession(bridge.url, '127.0.0.15');
      pages.push({ session, uri: await session.bigOutput(2_500_000) });
    }
    expect(await victim.reads(kept)).toBe(true);
    const first = pages[0] as (typeof pages)[number];
    const last = pages[9] as (typeof pages)[number];
    expect(await first.session.reads(first.uri)).toBe(false);
    expect(await last.session.reads(last.uri)).toBe(true);
    // What Redis holds: the victim's output and at most the flooding address's 16 MiB.
    const held = await storedBytes(redis);
    expect(held).toBeLessThanOrEqual(3_000_000 + 16 * 1024 * 1024);
  });
});

/** The bytes of every page body in Redis. */
async function storedBytes(redis: TestRedis): Promise<number> {
  let cursor = '0';
  let bytes = 0;
  do {
    const [next, keys] = (await redis.command(
      'SCAN',
      cursor,
      'MATCH',
      'bridge:res:bridge://*',
      'COUNT',
      '1000',
    )) as [string, string[]];
    cursor = next;
    for (const key of keys) bytes += Number(await redis.command('HSTRLEN', key, 'body'));
  } while (cursor !== '0');
  return bytes;
}
