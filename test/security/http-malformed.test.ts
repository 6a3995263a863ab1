// Class: malformed requests that used to reach code unprepared for them (a stack overflow on deep
// JSON, a URL with credentials built from Host). Each is refused with 400 and the server keeps serving.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, modernRequest } from '../helpers/modern-request.js';
import { type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { AUTH_SERVER } from './helpers.js';
import { openSocket, outcome } from './raw-http.js';

let bridge: HttpBridge;
beforeAll(async () => {
  bridge = await startHttpBridge({ script: AUTH_SERVER, args: ['notes'] });
});
afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
});

const MODERN_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
};

function call(args: string): string {
  return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${args},"_meta":${JSON.stringify(envelope())}}}`;
}

async function post(
  body: string,
): Promise<{ status: number; code?: number; message?: string; text: string }> {
  const response = await fetch(bridge.url, { method: 'POST', headers: MODERN_HEADERS, body });
  const text = await response.text();
  const data = text.startsWith('{') ? text : [...text.matchAll(/^data: (.*)$/gm)].at(-1)?.[1];
  const json = data ? (JSON.parse(data) as { error?: { code: number; message: string } }) : undefined;
  return {
    status: response.status,
    text,
    ...(json?.error ? { code: json.error.code, message: json.error.message } : {}),
  };
}

async function stillServes(): Promise<void> {
  const reply = await modernRequest(bridge.url, 'tools/call', { name: 'echo', arguments: { text: 'next' } });
  expect(reply.json?.result?.content?.[0]?.text).toBe('next');
}

describe('deeply nested JSON is refused before it is parsed', () => {
  it.each([
    ['5,000 nested arrays as the body', `${'['.repeat(5000)}${']'.repeat(5000)}`],
    [
      '5,000 nested objects as an argument',
      call(`{"text":"x","deep":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`),
    ],
    ['100,000 nested arrays, unterminated', '['.repeat(100_000)],
  ])('%s: 400 -32700', async (_label, body) => {
    const answer = await post(body);
    expect(answer.status).toBe(400);
    expect(answer.code).toBe(-32700);
    expect(answer.message).toMatch(/nests deeper than 128 levels/);
    await stillServes();
  });

  it.each([
    ['brackets inside strings do not count', call(`{"text":"${'['.repeat(5000)}"}`), '['.repeat(5000)],
    ['100 levels are served', call(`{"text":"ok","deep":${'['.repeat(100)}${']'.repeat(100)}}`), 'ok'],
  ])('%s', async (_label, body, text) => {
    const answer = await post(body);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(JSON.stringify(text).slice(1, -1));
  });
});

/** Sends a request with a raw Host header and request target; resolves to the status line. */
async function rawRequest(host: string, target = '/mcp'): Promise<string> {
  const socket = await openSocket(bridge.url);
  const result = outcome(socket);
  const body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
  socket.end(
    `POST ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  );
  const { text } = await result;
  return text.split('\r\n')[0] ?? '';
}

describe('a Host header or request target that is not a plain host is refused', () => {
  it.each([
    ['userinfo in Host', 'localhost@evil.com', /^HTTP\/1\.1 400 /],
    ['userinfo and port in Host', `user:pass@localhost:${'8080'}`, /^HTTP\/1\.1 400 /],
    ['a path in Host', 'localhost/x', /^HTTP\/1\.1 400 /],
    ['a port past 65535 in Host', 'localhost:99999', /^HTTP\/1\.1 400 /],
    ['an IPv6 literal that is no address', '[:::]', /^HTTP\/1\.1 400 /],
    ['a foreign host (DNS rebinding)', 'evil.example', /^HTTP\/1\.1 403 /],
  ])('%s → %s', async (_label, host, status) => {
    expect(await rawRequest(host)).toMatch(status);
    await stillServes();
  });

  it('two Host headers, the first one allowed', async () => {
    // A 2026-07-28 list, answered with one Host header: refused with a second one (RFC 9112, 3.2).
    const list = async (hosts: string[]) => {
      const socket = await openSocket(bridge.url);
      const result = outcome(socket);
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: envelope() },
      });
      const head = [
        `POST ${bridge.url.pathname} HTTP/1.1`,
        ...hosts.map((host) => `Host: ${host}`),
        'Content-Type: application/json',
        'Accept: application/json, text/event-stream',
        'MCP-Protocol-Version: 2026-07-28',
        'Mcp-Method: tools/list',
        `Content-Length: ${body.length}`,
        'Connection: close',
      ];
      socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
      return (await result).text.split('\r\n')[0];
    };
    expect(await list([bridge.url.host])).toMatch(/^HTTP\/1\.1 200 /);
    expect(await list([bridge.url.host, 'evil.example'])).toMatch(/^HTTP\/1\.1 400 /);
    await stillServes();
  });

  // The routes compare the parsed path: `/oauth/..\mcp` was the MCP endpoint to the bridge, while a
  // proxy routing on the raw path sent it to the sign-in location it leaves unauthenticated.
  const listAt = async (target: string) => {
    const socket = await openSocket(bridge.url);
    const result = outcome(socket);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: envelope() },
    });
    const head = [
      `POST ${target} HTTP/1.1`,
      `Host: ${bridge.url.host}`,
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
      'MCP-Protocol-Version: 2026-07-28',
      'Mcp-Method: tools/list',
      `Content-Length: ${body.length}`,
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
    return (await result).text.split('\r\n')[0];
  };

  it.each([
    '/oauth/..\\mcp',
    '/oauth/%2e%2e/mcp',
    '/oauth/%2E./mcp',
    '/x/../mcp',
    '/./mcp',
    '/oauth%5c..%5cmcp',
  ])('a path only a parser makes into the endpoint (%s): 400', async (target) => {
    expect(await listAt(target)).toMatch(/^HTTP\/1\.1 400 /);
    await stillServes();
  });

  it('the endpoint itself, with a query holding dots, is served', async () => {
    expect(await listAt(bridge.url.pathname)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await listAt(`${bridge.url.pathname}?x=../y`)).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('an absolute-form request target', async () => {
    expect(await rawRequest(bridge.url.host, 'http://evil.example/mcp')).toMatch(/^HTTP\/1\.1 400 /);
    await stillServes();
  });

  it('an empty POST body: 400 -32700', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(bridge.url, { method: 'POST', headers: MODERN_HEADERS });
      req.on('response', (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
    await stillServes();
  });
});
