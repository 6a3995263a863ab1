// The stdio direct lane (src/server/direct-stdio-call.ts) must answer exactly what the SDK's path
// answers, with the same messages to the client on the way. Each call is sent twice to a real
// bridge process on stdio: plainly (the lane takes it) and with an extra `_meta` key, which the
// SDK ignores and the lane refuses (so the SDK serves it). A raw JSON-lines client answers the
// server's own requests (roots, elicitation) and records everything the bridge writes.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distPath } from '../helpers/start-bridge.js';

const SDK_PATH = { 'example.com/path': 'sdk' };

class RawClient {
  readonly #child: ChildProcess;
  #buffer = '';
  readonly #waiting = new Map<string | number, (message: Record<string, unknown>) => void>();
  /** Everything the bridge sent that is not a response, per call id. */
  readonly seen = new Map<string | number, Array<Record<string, unknown>>>();
  #current: string | number | undefined;
  #next = 1;

  constructor(script: string) {
    this.#child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'ignore'] });
    this.#child.stdout?.setEncoding('utf8');
    this.#child.stdout?.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (let at = this.#buffer.indexOf('\n'); at >= 0; at = this.#buffer.indexOf('\n')) {
        const line = this.#buffer.slice(0, at);
        this.#buffer = this.#buffer.slice(at + 1);
        this.#receive(JSON.parse(line) as Record<string, unknown>);
      }
    });
  }

  #receive(message: Record<string, unknown>): void {
    const id = message.id as string | number | undefined;
    if (id !== undefined && ('result' in message || 'error' in message)) {
      this.#waiting.get(id)?.(message);
      return;
    }
    if (this.#current !== undefined) this.seen.get(this.#current)?.push(message);
    // The client's answers to the server's questions.
    if (message.method === 'roots/list')
      this.send({ jsonrpc: '2.0', id, result: { roots: [{ uri: 'file:///tmp/a' }] } });
    if (message.method === 'elicitation/create') {
      const properties = Object.keys(
        ((message.params as Record<string, unknown>).requestedSchema as { properties: object }).properties,
      );
      const content = properties.includes('color') ? { color: 'blue' } : { name: 'Ada' };
      this.send({ jsonrpc: '2.0', id, result: { action: 'accept', content } });
    }
  }

  send(message: Record<string, unknown>): void {
    this.#child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends `message` as it is and waits for the answer to its id. */
  raw(message: Record<string, unknown> & { id: string | number }) {
    return new Promise<Record<string, unknown>>((resolve) => {
      this.#waiting.set(message.id, resolve);
      this.send(message);
    });
  }

  get child(): ChildProcess {
    return this.#child;
  }

  request(method: string, params: Record<string, unknown>, id: string | number = this.#next++) {
    this.seen.set(id, []);
    this.#current = id;
    return new Promise<Record<string, unknown>>((resolve) => {
      this.#waiting.set(id, resolve);
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  async initialize(capabilities: object) {
    await this.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities,
      clientInfo: { name: 'raw', version: '1' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // An unrelated request makes sure the initialized notification was read first.
    await this.request('ping', {});
  }

  close(): void {
    this.#child.kill();
  }
}

let dir: string;
let echo: RawClient;
let ask: RawClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-lane-'));
  echo = new RawClient(distPath('test/servers/echo-server.js'));
  ask = new RawClient(distPath('test/servers/ask-server.js'));
  await echo.initialize({});
  await ask.initialize({ roots: {}, elicitation: {} });
});

afterAll(() => {
  echo?.close();
  ask?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One call both ways: the answer and the messages sent on the way, with ids and tokens made alike. */
async function bothWays(client: RawClient, name: string, args: Record<string, unknown>, progress = false) {
  const run = async (extra: object) => {
    const token = progress ? { progressToken: 'p' } : {};
    const meta = { ...extra, ...token };
    const id = `${name}-${Object.keys(extra).length > 0 ? 'sdk' : 'lane'}-${Math.random()}`;
    // Roots are kept per connection: forgotten before each call, so that both calls ask.
    client.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    const answer = await client.request(
      'tools/call',
      { name, arguments: args, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) },
      id,
    );
    const on = (client.seen.get(id) ?? []).map(({ id: _id, ...message }) => message);
    delete answer.id;
    return { answer, on };
  };
  return { viaSdk: await run(SDK_PATH), viaLane: await run({}) };
}

describe('the stdio lane answers exactly what the SDK answers', () => {
  const cases: Array<[string, () => RawClient, string, Record<string, unknown>, boolean?]> = [
    ['a plain result', () => echo, 'echo', { text: 'hi', times: 2 }],
    ['structured content', () => echo, 'add', { a: 2, b: 3 }],
    ['arguments the input schema refuses', () => echo, 'add', { a: 'two' }],
    ['a tool that throws', () => echo, 'fail', {}],
    ['progress notifications before the result', () => echo, 'slow', { ms: 20, steps: 3 }, true],
    ['the client roots, asked over the connection', () => ask, 'client_roots', {}],
    ['two questions, answered by the client', () => ask, 'two_steps', { marker: 'MARKER' }],
  ];
  it.each(cases)('%s', async (_label, client, name, args, progress) => {
    const marked = 'marker' in args ? { marker: join(dir, `${name}-${Math.random()}`) } : {};
    const { viaSdk, viaLane } = await bothWays(client(), name, { ...args, ...marked }, progress);
    expect(viaLane.answer).toEqual(viaSdk.answer);
    expect(viaLane.on).toEqual(viaSdk.on);
    expect(viaSdk.answer.result ?? viaSdk.answer.error).toBeDefined();
  });

  it('an unknown tool is left to the SDK: the same JSON-RPC error', async () => {
    const { viaSdk, viaLane } = await bothWays(echo, 'nope', {});
    expect(viaLane.answer).toEqual(viaSdk.answer);
    expect(viaLane.answer.error).toMatchObject({ code: -32602 });
  });

  it('notifications/cancelled aborts a call the lane took, which then gets no answer', async () => {
    const marker = join(dir, 'cancelled');
    let answered = false;
    void echo
      .request('tools/call', { name: 'wait_for_abort', arguments: { marker } }, 'to-cancel')
      .then(() => {
        answered = true;
      });
    for (let i = 0; i < 200 && !existsSync(`${marker}.started`); i++)
      await new Promise((r) => setTimeout(r, 10));
    echo.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'to-cancel', reason: 'test' },
    });
    for (let i = 0; i < 200 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 10));
    expect(readFileSync(marker, 'utf8')).toBe('aborted');
    // Still serving, and the cancelled call never answered (the ping's answer comes after it would have).
    expect(await echo.request('ping', {})).toMatchObject({ result: {} });
    expect(answered).toBe(false);
  });

  // The lane reads each line before the transport's JSON-RPC checks: it must take nothing they refuse.
  it.each([
    ['a member the request schema does not have', { extra: 1 }, {}],
    ['a progress token that is not an integer', {}, { _meta: { progressToken: 1.5 } }],
  ])('a call with %s is refused as the SDK refuses it', async (_label, top, params) => {
    const answer = await echo.raw({
      jsonrpc: '2.0',
      id: `bad-${Math.random()}`,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' }, ...params },
      ...top,
    });
    expect(answer.error).toMatchObject({ code: -32600 });
    expect(await echo.request('ping', {})).toMatchObject({ result: {} });
  });

  it('a cancellation the notification schema refuses aborts nothing', async () => {
    const marker = join(dir, 'not-cancelled');
    const call = echo.request('tools/call', { name: 'wait_for_abort', arguments: { marker } }, 'kept');
    for (let i = 0; i < 200 && !existsSync(`${marker}.started`); i++)
      await new Promise((r) => setTimeout(r, 10));
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'kept' } };
    echo.send({ ...cancel, extra: 1 });
    // Read after the refused notification: by its answer, that one was dealt with.
    expect(await echo.request('ping', {})).toMatchObject({ result: {} });
    expect(existsSync(marker)).toBe(false);
    echo.send(cancel);
    for (let i = 0; i < 200 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 10));
    expect(readFileSync(marker, 'utf8')).toBe('aborted');
    void call;
  });

  it('shutdown (SIGTERM) aborts a call the lane took, and the bridge exits', async () => {
    const client = new RawClient(distPath('test/servers/echo-server.js'));
    await client.initialize({});
    const marker = join(dir, 'sigterm');
    void client.request('tools/call', { name: 'wait_for_abort', arguments: { marker } });
    for (let i = 0; i < 200 && !existsSync(`${marker}.started`); i++)
      await new Promise((r) => setTimeout(r, 10));
    const exited = new Promise((resolve) => client.child.once('exit', resolve));
    client.child.kill('SIGTERM');
    await exited;
    expect(readFileSync(marker, 'utf8')).toBe('aborted');
  });
});

describe('initialize, answered by the lane on a fresh connection', () => {
  // Two fresh processes: a plain initialize (the lane answers it) and the same with a `_meta` the
  // lane leaves to the SDK. Then the opening exchange of a usual client on each: the same answers,
  // and the server the lane initialized serves what only the SDK serves (ping, resources/list) once
  // the SDK has pinned it.
  async function opening(meta: object) {
    const client = new RawClient(distPath('test/servers/echo-server.js'));
    try {
      const params = {
        protocolVersion: '2025-11-25',
        capabilities: { roots: { listChanged: true }, elicitation: {} },
        clientInfo: { name: 'raw', version: '1' },
        ...meta,
      };
      const initialize = await client.raw({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
      client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const list = await client.raw({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const ping = await client.raw({ jsonrpc: '2.0', id: 3, method: 'ping' });
      const resources = await client.raw({ jsonrpc: '2.0', id: 4, method: 'resources/list' });
      const call = await client.raw({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'hi', times: 1 } },
      });
      return { initialize, list, ping, resources, call };
    } finally {
      client.close();
    }
  }

  it('answers a client that sends its first requests without waiting in the order it asked', async () => {
    const child = spawn(process.execPath, [distPath('test/servers/echo-server.js')], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    try {
      const ids: unknown[] = [];
      let buffer = '';
      const done = new Promise<void>((resolve) => {
        child.stdout?.setEncoding('utf8');
        child.stdout?.on('data', (chunk: string) => {
          buffer += chunk;
          for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
            const message = JSON.parse(buffer.slice(0, at)) as { id?: unknown; result?: unknown };
            buffer = buffer.slice(at + 1);
            if (message.result !== undefined) ids.push(message.id);
            if (ids.length === 5) resolve();
          }
        });
      });
      const params = {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      };
      // One write: every line arrives in one chunk. The lane answers the `initialize`; no answer
      // to a request sent with it may overtake that answer, and the lists are answered in order.
      const call = { name: 'echo', arguments: { text: 'hi', times: 1 } };
      const lines = [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
        { jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} },
        { jsonrpc: '2.0', id: 5, method: 'tools/call', params: call },
      ];
      child.stdin?.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      await done;
      expect(ids[0]).toBe(1);
      expect(ids.filter((id) => id !== 5)).toEqual([1, 2, 3, 4]);
    } finally {
      child.kill();
    }
  });

  it('answers as the SDK answers, and the connection goes on as with the SDK', async () => {
    const [lane, sdk] = await Promise.all([opening({}), opening({ _meta: { 'example.com/x': 1 } })]);
    expect(lane).toEqual(sdk);
    expect(lane.initialize).toMatchObject({
      result: { protocolVersion: '2025-11-25', serverInfo: expect.any(Object) },
    });
    expect(lane.call).toMatchObject({ result: { content: [{ type: 'text', text: 'hi' }] } });
  });
});
