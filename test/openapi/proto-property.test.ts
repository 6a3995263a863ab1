import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileValidator } from '../../src/validate-arguments.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { startUpstream, type Upstream } from './helpers/upstream.js';

// A parameter or body property named `__proto__` is a name like any other: the converter builds
// schemas by assignment, where that name would set the object's prototype and vanish from the
// tool's inputSchema (and from what is sent upstream).
let upstream: Upstream;
let dir: string;
let spec: string;
beforeAll(async () => {
  upstream = await startUpstream();
  dir = mkdtempSync(join(tmpdir(), 'bridge-proto-'));
  spec = join(dir, 'spec.json');
  const item = {
    type: 'object',
    properties: { PROTO: { type: 'string', description: 'the odd one' }, name: { type: 'string' } },
    required: ['PROTO'],
  };
  // Written as text, the name put in last: a `__proto__` key in an object literal sets its prototype.
  writeFileSync(
    spec,
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'proto', version: '1' },
      paths: {
        '/items': {
          post: {
            operationId: 'createItem',
            parameters: [{ name: 'tag', in: 'query', schema: { type: 'string' } }],
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } },
            },
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
            },
          },
        },
        '/search': {
          get: {
            operationId: 'search',
            parameters: [{ name: 'PROTO', in: 'query', required: true, schema: { type: 'string' } }],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
      components: { schemas: { Item: item } },
    }).replaceAll('"PROTO"', '"__proto__"'),
  );
});
afterAll(async () => {
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Raw JSON-lines over stdio: the SDK clients' own zod parsing drops `__proto__` keys from what they
// receive, so they could not show what the bridge sends.
async function session(args: string[]) {
  const child = spawn(process.execPath, [BRIDGE_BIN, ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = new Map<number, (message: string) => void>();
  lines.on('line', (line) => {
    const id = (JSON.parse(line) as { id?: number }).id;
    if (id !== undefined) waiting.get(id)?.(line);
  });
  let next = 0;
  // Answers as text, parsed by the caller with JSON.parse (which keeps `__proto__` as an own key).
  const request = (method: string, params: string) =>
    new Promise<string>((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}\n`);
    });
  await request(
    'initialize',
    '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}',
  );
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  return {
    request,
    async [Symbol.asyncDispose]() {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

interface ListedTool {
  name: string;
  inputSchema: {
    properties: Record<string, { properties?: object; required?: string[] }>;
    required?: string[];
  };
}
interface CallResult {
  result: { isError?: boolean; content: unknown[] };
}

describe('a property named __proto__', () => {
  it('appears in the inputSchema, is validated, and is sent upstream', async () => {
    await using bridge = await session([
      'openapi',
      spec,
      '--tools',
      'all',
      '--base-url',
      upstream.url,
      '--no-cache',
    ]);
    const listed = JSON.parse(await bridge.request('tools/list', '{}')) as {
      result: { tools: ListedTool[] };
    };
    const search = listed.result.tools.find((tool) => tool.name === 'search');
    const create = listed.result.tools.find((tool) => tool.name === 'createItem');
    expect(Object.keys(search?.inputSchema.properties ?? {})).toEqual(['__proto__']);
    expect(search?.inputSchema.required).toEqual(['__proto__']);
    const body = create?.inputSchema.properties.body;
    expect(Object.keys(body?.properties ?? {})).toEqual(['__proto__', 'name']);
    expect(body?.required).toEqual(['__proto__']);

    const call = async (name: string, args: string) =>
      (JSON.parse(await bridge.request('tools/call', `{"name":"${name}","arguments":${args}}`)) as CallResult)
        .result;
    expect((await call('search', '{"__proto__":"x y"}')).isError).toBeFalsy();
    expect(upstream.requests.at(-1)?.url).toBe('/v1/search?__proto__=x%20y');

    expect((await call('createItem', '{"body":{"__proto__":"odd","name":"n"}}')).isError).toBeFalsy();
    expect(upstream.requests.at(-1)?.body.toString()).toBe('{"__proto__":"odd","name":"n"}');

    // Required, and a string: refused before anything is sent.
    const sent = upstream.requests.length;
    const missing = await call('createItem', '{"body":{"name":"n"}}');
    expect(missing.isError).toBe(true);
    expect(JSON.stringify(missing.content)).toContain('__proto__');
    const wrong = await call('search', '{"__proto__":{"polluted":true}}');
    expect(wrong.isError).toBe(true);
    expect(upstream.requests.length).toBe(sent);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    // The name the validator spells `__proto__` with, sent by the caller: refused, not sent as
    // `__proto__` nor left to overwrite the caller's own `__proto__` while the names are swapped.
    const spelled = await call(
      'createItem',
      '{"body":{"__proto__\\u0000":"sneak","__proto__":"odd","name":"n"}}',
    );
    expect(spelled.isError).toBe(true);
    expect(JSON.stringify(spelled.content)).toContain('/body');
    expect(upstream.requests.length).toBe(sent);
  });

  it('is refused when spelled as the stand-in the validator uses, at any depth', () => {
    // From JSON text: in an object literal `__proto__` would set the prototype.
    const validate = compileValidator(
      JSON.parse(
        '{"type":"object","properties":{"__proto__":{"type":"string"},"list":{"type":"array","items":{"type":"object"}}},"additionalProperties":false}',
      ),
    );
    const standIn = '__proto__\u0000';
    const own = (entries: Array<[string, unknown]>) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of entries)
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      return out;
    };
    expect(validate(own([['__proto__', 'fine']]))).toEqual([]);
    expect(validate(own([[standIn, 'x']]))).toEqual([
      { path: '', message: expect.stringContaining('__proto__') },
    ]);
    const nested = own([['list', [{}, own([[standIn, 1]])]]]);
    expect(validate(nested)).toEqual([{ path: '/list/1', message: expect.stringContaining('__proto__') }]);
  });

  it('compiles when "__proto__" is also data (an enum value), not only a name', () => {
    // The stand-in spelling leaves data as written: compiling it must not loop back on itself.
    const validate = compileValidator({
      type: 'object',
      properties: { kind: { type: 'string', enum: ['__proto__', 'plain'] } },
    });
    expect(validate({ kind: '__proto__' })).toEqual([]);
    expect(validate({ kind: 'other' })).toHaveLength(1);
  });
});
