import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, modernRequest } from '../helpers/modern-request.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';

let bridge: HttpBridge;
beforeAll(async () => {
  bridge = await startHttpBridge({ script: distPath('test/servers/echo-server.js'), args: [] });
});
afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
});

async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(bridge.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
  const text = await response.text();
  const json = text.startsWith('{')
    ? (JSON.parse(text) as { error?: { code: number; message: string } })
    : undefined;
  return { status: response.status, json, text };
}

function rawStatus(headers: Record<string, string>, body: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(bridge.url, { method: 'POST', headers });
    req.on('response', (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    req.on('error', (error) => setTimeout(() => reject(error), 500));
    req.end(body);
  });
}

/** A 2026-07-28 request with its envelope and the headers the revision requires. */
async function modern(
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const reply = await modernRequest(bridge.url, method, params, { headers, id: 7 });
  return { status: reply.status, json: reply.json, text: reply.text };
}

describe('Streamable HTTP rejects bad input with the spec’s codes and keeps serving', () => {
  it.each([
    ['malformed JSON', '{bad', 400, -32700],
    ['an object that is not JSON-RPC', '{"foo":1}', 400, -32600],
    ['a batch of non-messages', '[1,2]', 400, -32600],
  ])('%s', async (_label, body, status, code) => {
    const answer = await post(body);
    expect(answer.status).toBe(status);
    expect(answer.json?.error?.code).toBe(code);
  });

  it('answers 404 for an unknown initialize-era session, so the client starts over', async () => {
    const answer = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {
      'mcp-session-id': 'no-such',
    });
    expect(answer.status).toBe(404);
  });

  it('answers 400 for an initialize-era request without a session', async () => {
    const answer = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    expect(answer.status).toBe(400);
    expect(answer.json?.error?.message).toMatch(/Mcp-Session-Id/);
  });

  it.each(['GET', 'DELETE'])('answers 405 to a sessionless %s', async (method) => {
    const response = await fetch(bridge.url, { method, headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('answers 415 to a body that is not JSON', async () => {
    const answer = await post('{}', { 'content-type': 'text/plain' });
    expect(answer.status).toBe(415);
  });

  it('answers 413 to a body over the limit', async () => {
    // The server may answer before the body is sent in full, so a write error after it is fine.
    const status = await rawStatus(
      { 'content-type': 'application/json' },
      `{"x":"${'a'.repeat(5 * 1024 * 1024)}"}`,
    );
    expect(status).toBe(413);
  });

  it('refuses a foreign Host or Origin (DNS rebinding)', async () => {
    // fetch cannot set Host, so this one goes through node:http.
    expect(await rawStatus({ host: 'evil.example', 'content-type': 'application/json' }, '{}')).toBe(403);
    expect((await post('{}', { origin: 'http://evil.example' })).status).toBe(403);
  });

  it('answers -32020 when the 2026-07-28 headers disagree with the body', async () => {
    const mismatch = await modern('tools/list', {}, { 'mcp-method': 'tools/call' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json?.error?.code).toBe(-32020);
    const missingName = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo', _meta: envelope() },
      }),
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' },
    );
    expect(missingName.json?.error?.code).toBe(-32020);
  });

  it('answers -32022 with the supported versions for an unknown revision', async () => {
    const answer = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { ...envelope(), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      }),
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    );
    expect(answer.json?.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'] } });
  });

  it('answers -32601 for an unknown method and -32602 for an unknown tool', async () => {
    expect((await modern('foo/bar')).json?.error?.code).toBe(-32601);
    expect((await modern('tools/call', { name: 'nope', arguments: {} })).json?.error?.code).toBe(-32602);
  });

  it('still answers normally after all of the above', async () => {
    const answer = await modern('tools/call', { name: 'echo', arguments: { text: 'fine' } });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('fine');
    const discover = await modern('server/discover');
    expect(discover.text).toContain('2026-07-28');
  });
});
