// The SDK quotes a malformed 2026-07-28 request's values whole in its answers (the envelope's
// version; over HTTP the method, name, URI or task id where the headers disagree, and the headers).
// Every error answer is bounded where it leaves the bridge (clip-error-answer.ts): its message to
// 1,000 characters, each string of its data to 2,048. Short ones go out as the SDK wrote them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineClient } from '../helpers/line-client.js';
import { envelope } from '../helpers/modern-request.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';

const SERVER = distPath('test/servers/echo-server.js');
const HUGE = 'A'.repeat(200_000);
/** What one bounded error answer may take, all told: a 1,000-character message, two data strings of 2,048. */
const SMALL = 8_000;
/** A message cut at 1,000 characters ends so. */
const CUT = /^.{1000}…$/s;

let bridge: HttpBridge;
let stdio: LineClient;
beforeAll(async () => {
  bridge = await startHttpBridge({ script: SERVER, args: [] });
  stdio = new LineClient([], {}, SERVER);
});
afterAll(async () => {
  stdio?.child.kill();
  await bridge?.[Symbol.asyncDispose]();
});

const withVersion = (version: string) => ({
  ...envelope(),
  'io.modelcontextprotocol/protocolVersion': version,
});

/** One raw 2026-07-28 request over HTTP with the headers given (none added). */
async function post(method: string, params: Record<string, unknown>, headers: Record<string, string>) {
  const response = await fetch(bridge.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    error: (JSON.parse(text) as { error: Record<string, unknown> }).error,
  };
}

const headersFor = (method: string, name?: string) => ({
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': method,
  ...(name === undefined ? {} : { 'mcp-name': name }),
});

describe('over HTTP', () => {
  it('an envelope version far longer than any real one: the SDK’s -32022, cut', async () => {
    const short = await post(
      'tools/list',
      { _meta: withVersion('1999-01-01') },
      { ...headersFor('tools/list'), 'mcp-protocol-version': '1999-01-01' },
    );
    expect(short.status).toBe(400);
    expect(short.error).toEqual({
      code: -32022,
      message: 'Unsupported protocol version: 1999-01-01',
      data: { supported: ['2026-07-28'], requested: '1999-01-01' },
    });
    // In the header too (which Node caps at 16 KiB with the others), so that the two agree.
    const version = 'V'.repeat(8_000);
    const long = await post(
      'tools/list',
      { _meta: withVersion(version) },
      { ...headersFor('tools/list'), 'mcp-protocol-version': version },
    );
    expect(long.status).toBe(400);
    expect(long.error.code).toBe(-32022);
    expect(long.error.message).toMatch(CUT);
    expect(long.error.message).toMatch(/^Unsupported protocol version: V+…$/);
    expect(long.error.data).toEqual({ supported: ['2026-07-28'], requested: `${'V'.repeat(2_048)}…` });
    expect(long.text.length).toBeLessThan(SMALL);
  });

  it('a version, method, name, URI or task id of 200,000 characters its header does not repeat: -32020, cut', async () => {
    const answers = [
      await post('tools/list', { _meta: withVersion(HUGE) }, headersFor('tools/list')),
      await post(HUGE, { _meta: envelope() }, headersFor('tools/list')),
      await post(
        'tools/call',
        { name: HUGE, arguments: {}, _meta: envelope() },
        headersFor('tools/call', 'echo'),
      ),
      await post('resources/read', { uri: HUGE, _meta: envelope() }, headersFor('resources/read', 'x://a')),
      await post('tasks/get', { taskId: HUGE, _meta: envelope() }, headersFor('tasks/get')),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.error.code).toBe(-32020);
      expect(answer.error.message).toMatch(CUT);
      expect(answer.text.length).toBeLessThan(SMALL);
    }
  });

  it('headers far longer than any real value: -32020, cut; a short mismatch goes out whole', async () => {
    const short = await post('tools/list', { _meta: envelope() }, headersFor('tools/lisst'));
    expect(short.status).toBe(400);
    expect(short.error.code).toBe(-32020);
    expect(short.error.message).toContain('tools/lisst');
    expect(short.error.message).not.toContain('…');
    const long = await post('tools/list', { _meta: envelope() }, headersFor('B'.repeat(8_000)));
    expect(long.status).toBe(400);
    expect(long.error.code).toBe(-32020);
    expect(long.text.length).toBeLessThan(SMALL);
    const name = await post(
      'tools/call',
      { name: 'echo', arguments: { text: 'x' }, _meta: envelope() },
      headersFor('tools/call', 'N'.repeat(8_000)),
    );
    expect(name.error.code).toBe(-32020);
    expect(name.text.length).toBeLessThan(SMALL);
  });

  it('a long name its header repeats goes on to the tool lookup, which quotes it itself', async () => {
    const name = 'N'.repeat(8_000);
    const answer = await post(
      'tools/call',
      { name, arguments: {}, _meta: envelope() },
      headersFor('tools/call', name),
    );
    expect(answer.error).toEqual({ code: -32602, message: `Unknown tool: "${'N'.repeat(100)}…"` });
  });

  it('goes on serving', async () => {
    const call = await post(
      'tools/call',
      { name: 'echo', arguments: { text: 'still here' }, _meta: envelope() },
      headersFor('tools/call', 'echo'),
    );
    expect(call.status).toBe(200);
    expect(call.error).toBeUndefined();
    expect(JSON.parse(call.text).result.content).toEqual([{ type: 'text', text: 'still here' }]);
  });
});

describe('over stdio', () => {
  it('an envelope version of 200,000 characters: the SDK’s -32022, cut; a short one whole', async () => {
    const short = JSON.parse(await stdio.line(1, 'tools/list', { _meta: withVersion('1999-01-01') }));
    expect(short.error).toEqual({
      code: -32022,
      message: 'Unsupported protocol version: 1999-01-01',
      data: { supported: ['2026-07-28'], requested: '1999-01-01' },
    });
    const line = await stdio.line(2, 'tools/list', { _meta: withVersion(HUGE) });
    expect(line.length).toBeLessThan(SMALL);
    expect(JSON.parse(line).error.code).toBe(-32022);
  });
});
