// An upstream that answers a tool with an outputSchema with something that is not JSON: the tool
// result is an isError naming the content type and quoting the start of the body, which both SDK
// clients accept (a success without structuredContent is what they reject).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_BIN, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { connectWithHeaders } from '../security/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'bridge-not-json-'));
let upstream: Server;
let bridge: HttpBridge;

// What the upstream sends for each path, all with status 200.
const BODIES: Record<string, { type: string; body: string }> = {
  '/html': { type: 'application/json', body: '<html><body>Gateway login required</body></html>' },
  '/truncated': { type: 'application/json; charset=utf-8', body: '{"count": 3, "items": [' },
  '/plain': { type: 'text/plain', body: 'maintenance until 10:00' },
  '/good': { type: 'application/json', body: '{"count": 3}' },
  // 5,000 levels: JSON.parse reads it; serializing or validating it recursed past the stack.
  '/deep': {
    type: 'application/json',
    body: `{"count": 3, "nested": ${'['.repeat(5000)}${']'.repeat(5000)}}`,
  },
  '/deep-free': {
    type: 'application/json',
    body: `{"count": 3, "nested": ${'['.repeat(5000)}${']'.repeat(5000)}}`,
  },
};

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const answer = BODIES[req.url ?? ''] ?? { type: 'text/plain', body: 'unknown' };
    res.writeHead(200, { 'content-type': answer.type });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  const operation = (id: string) => ({
    get: {
      operationId: id,
      responses: {
        '200': {
          description: 'ok',
          content: {
            'application/json': {
              // `/deep-free` declares no schema: its tool has no outputSchema.
              ...(id === 'getdeep-free'
                ? {}
                : {
                    schema: {
                      type: 'object',
                      properties: { count: { type: 'integer' } },
                      required: ['count'],
                    },
                  }),
            },
          },
        },
      },
    },
  });
  const spec = {
    openapi: '3.0.3',
    info: { title: 'not json', version: '1' },
    servers: [{ url: `http://127.0.0.1:${port}` }],
    paths: Object.fromEntries(Object.keys(BODIES).map((path) => [path, operation(`get${path.slice(1)}`)])),
  };
  writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
  bridge = await startHttpBridge({
    script: BRIDGE_BIN,
    args: ['openapi', join(dir, 'spec.json'), '--no-watch'],
  });
});
afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
  await new Promise((resolve) => upstream?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe.each(['v1', 'v2'] as const)('with the %s client', (kind) => {
  it.each([
    [
      'HTML under application/json',
      'gethtml',
      /not valid JSON although its Content-Type is application\/json/,
      '<html><body>Gateway login required',
    ],
    [
      'a truncated JSON body',
      'gettruncated',
      /not valid JSON although its Content-Type is application\/json/,
      '{"count": 3, "items": [',
    ],
    ['text/plain', 'getplain', /is text\/plain, not the JSON its schema declares/, 'maintenance until 10:00'],
  ])('%s → isError naming the type and quoting the body', async (_label, tool, problem, start) => {
    await using client = await connectWithHeaders(kind, bridge.url);
    const result = (await client.callTool(tool)) as { isError?: boolean; content: Array<{ text?: string }> };
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(problem);
    expect(result.content[0]?.text).toContain(start);
  });

  it('JSON nested 5,000 levels deep, from a tool with an outputSchema → isError, with the whole body', async () => {
    await using client = await connectWithHeaders(kind, bridge.url);
    const result = (await client.callTool('getdeep')) as {
      isError?: boolean;
      structuredContent?: unknown;
      content: Array<{ text?: string }>;
    };
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content[0]?.text).toMatch(/nests arrays and objects deeper than 128 levels/);
    expect(result.content[1]?.text).toBe(BODIES['/deep']?.body);
  });

  it('JSON nested 5,000 levels deep, from a tool without an outputSchema, comes back as its text only', async () => {
    await using client = await connectWithHeaders(kind, bridge.url);
    const result = (await client.callTool('getdeep-free')) as {
      isError?: boolean;
      structuredContent?: unknown;
      content: Array<{ text?: string }>;
    };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toBeUndefined();
    expect(result.content[0]?.text).toBe(BODIES['/deep-free']?.body);
    // And the server still answers.
    expect(((await client.callTool('getgood')) as { structuredContent?: unknown }).structuredContent).toEqual(
      {
        count: 3,
      },
    );
  });

  it('a JSON body still comes back as structuredContent', async () => {
    await using client = await connectWithHeaders(kind, bridge.url);
    const result = (await client.callTool('getgood')) as { isError?: boolean; structuredContent?: unknown };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ count: 3 });
  });
});
