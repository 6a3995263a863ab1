import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstText, type LoadedTools, loadTools } from './helpers/in-process.js';
import { startUpstream, type Upstream } from './helpers/upstream.js';

// Parameters and properties named like `Object.prototype`'s members (`constructor`, `valueOf`,
// `toString`) are names like any other. Read as `args[name]`, a left-out one was `Object`'s own:
// a query parameter sent as `?constructor=undefined`, an optional body property refusing every
// call ("must be a string"), a required one counted as given.

let upstream: Upstream;
let dir: string;
let tools: LoadedTools;
beforeAll(async () => {
  upstream = await startUpstream();
  dir = mkdtempSync(join(tmpdir(), 'bridge-prototype-names-'));
  const spec = join(dir, 'spec.json');
  writeFileSync(
    spec,
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'names', version: '1' },
      paths: {
        '/cars': {
          post: {
            operationId: 'addCar',
            parameters: [
              { name: 'constructor', in: 'query', schema: { type: 'string' } },
              { name: 'valueOf', in: 'header', schema: { type: 'string' } },
              { name: 'hasOwnProperty', in: 'cookie', schema: { type: 'string' } },
            ],
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      constructor: { type: 'string', description: 'F1 constructor' },
                      toString: { type: 'string' },
                      name: { type: 'string' },
                    },
                    required: ['toString'],
                  },
                },
              },
            },
            responses: { '201': { description: 'made' } },
          },
        },
      },
    }),
  );
  tools = await loadTools({ spec, baseUrl: upstream.url, cache: false });
});
afterAll(async () => {
  await tools?.close();
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function sent(args: Record<string, unknown>) {
  const before = upstream.requests.length;
  const result = await tools.call('addCar', args);
  return { result, requests: upstream.requests.slice(before) };
}

describe('arguments named like Object.prototype members', () => {
  it('leaves out what was left out', async () => {
    const { result, requests } = await sent({ body: { toString: 'a', name: 'Lotus' } });
    expect(result.isError).toBeFalsy();
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.url).toBe('/v1/cars');
    expect(request?.headers).not.toHaveProperty('valueof');
    expect(request?.headers).not.toHaveProperty('cookie');
    expect(JSON.parse(request?.body.toString() ?? '')).toEqual({ toString: 'a', name: 'Lotus' });
  });

  it('sends them when given', async () => {
    const { requests } = await sent({
      constructor: 'Lotus',
      valueOf: '7',
      hasOwnProperty: 'yes',
      body: { toString: 'a', constructor: 'Lotus Cars' },
    });
    expect(requests.map((request) => request.url)).toEqual(['/v1/cars?constructor=Lotus']);
    expect(requests[0]?.headers.valueof).toBe('7');
    expect(requests[0]?.headers.cookie).toBe('hasOwnProperty=yes');
    expect(JSON.parse(requests[0]?.body.toString() ?? '')).toEqual({
      toString: 'a',
      constructor: 'Lotus Cars',
    });
  });

  it('counts a required one as missing when it is left out', async () => {
    const { result, requests } = await sent({ body: { name: 'Lotus' } });
    expect(requests).toEqual([]);
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('/body/toString: is required');
  });
});
