// SEP-2243 `Mcp-Param-*` headers (2026-07-28 over HTTP): a call to a tool whose input schema
// marks an argument with `x-mcp-header` must repeat that argument in a header, or get 400 / -32020.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernRequest } from '../helpers/modern-request.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';

let bridge: HttpBridge;
beforeAll(async () => {
  bridge = await startHttpBridge({ script: distPath('test/servers/conformance-server.js'), args: [] });
});
afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
});

/** A 2026-07-28 tools/call with the standard headers and `extra` ones. */
async function call(name: string, args: Record<string, unknown>, extra: Record<string, string> = {}) {
  const reply = await modernRequest(
    bridge.url,
    'tools/call',
    { name, arguments: args },
    { headers: extra, id: 9 },
  );
  return { status: reply.status, json: reply.json ?? {} };
}

const base64 = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;

describe('Mcp-Param-* headers against x-mcp-header declarations', () => {
  it('accepts a call whose header repeats the argument, raw or Base64-encoded', async () => {
    const plain = await call(
      'test_custom_header',
      { region: 'eu-west-1' },
      { 'mcp-param-region': 'eu-west-1' },
    );
    expect(plain.status).toBe(200);
    expect(plain.json.result?.content?.[0]?.text).toBe('region: eu-west-1');
    const encoded = await call(
      'test_custom_header',
      { region: 'Zürich' },
      { 'Mcp-Param-Region': base64('Zürich') },
    );
    expect(encoded.json.result?.content?.[0]?.text).toBe('region: Zürich');
  });

  it.each([
    ['a missing header', {}],
    ['a header that disagrees with the body', { 'mcp-param-region': 'us-east-1' }],
    ['non-canonical Base64 (no padding)', { 'mcp-param-region': '=?base64?SGVsbG8?=' }],
    ['Base64 outside the alphabet', { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }],
  ])('refuses %s with 400 and -32020, echoing the request id', async (_label, headers) => {
    const region = _label.includes('Base64') ? 'Hello' : 'eu-west-1';
    const answer = await call('test_custom_header', { region }, headers);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ id: 9, error: { code: -32020 } });
    expect(answer.json.error?.message).toContain('Mcp-Param-Region');
  });

  it('takes a value without both Base64 sentinels literally, and checks nothing for other tools', async () => {
    const literal = await call(
      'test_custom_header',
      { region: '=?base64?SGk=' },
      { 'mcp-param-region': '=?base64?SGk=' },
    );
    expect(literal.status).toBe(200);
    const other = await call('echo', { text: 'hi' }, { 'mcp-param-region': 'ignored' });
    expect(other.json.result?.content?.[0]?.text).toBe('hi');
  });
});
