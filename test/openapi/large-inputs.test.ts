// A spec whose request bodies each reach hundreds of components: each tool lists the first
// MAX_SCHEMA_ENTRIES entries of its input schema, the start says so once (and so does a start from
// the conversion cache), and a body deeper than the listed part reaches the API whole.

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { MAX_SCHEMA_ENTRIES } from '../../src/index.js';
import { connect } from '../helpers/connect.js';
import { schemaEntries } from '../helpers/schema-entries.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { startUpstream } from './helpers/upstream.js';

const LEVELS = 100;
const FIELDS = 30;
const OPERATIONS = 40;

const dir = mkdtempSync(join(tmpdir(), 'bridge-large-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeSpec(): string {
  const schemas: Record<string, unknown> = {};
  for (let at = 0; at < LEVELS; at++) {
    const properties: Record<string, unknown> = { id: { type: 'string' } };
    for (let field = 0; field < FIELDS; field++) properties[`f${field}`] = { type: 'string' };
    // Referenced twice, so each but the first stays a definition rather than being put in place.
    if (at + 1 < LEVELS) {
      properties.next = { $ref: `#/components/schemas/S${at + 1}` };
      properties.also = { $ref: `#/components/schemas/S${at + 1}` };
    }
    schemas[`S${at}`] = { type: 'object', properties, required: ['id'] };
  }
  const paths: Record<string, unknown> = {};
  for (let at = 0; at < OPERATIONS; at++) {
    paths[`/things/${at}`] = {
      post: {
        operationId: `make${at}`,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } },
        },
        responses: { '200': { description: 'made' } },
      },
    };
  }
  const spec = join(dir, 'spec.json');
  writeFileSync(
    spec,
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'deep', version: '1' },
      paths,
      components: { schemas },
    }),
  );
  return spec;
}

it('lists each tool within the bound, warns once on every start, and sends a deeper body whole', async () => {
  const spec = writeSpec();
  const cacheDir = join(dir, 'cache');
  await using upstream = await startUpstream();
  const start = () =>
    connect('v1', 'stdio', {
      script: BRIDGE_BIN,
      args: ['openapi', spec, '--tools', 'all', '--base-url', upstream.url],
      env: { BRIDGE_CACHE_DIR: cacheDir },
    });
  const warning = `${OPERATIONS} tools make0, make1, make10, make11, make12, make13, make14, make15, make16, make17, and ${OPERATIONS - 10} more: their input schemas list the first 2,000 entries nearest the top`;

  let listed: unknown[];
  {
    await using client = await start();
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(OPERATIONS);
    for (const tool of tools) {
      expect(schemaEntries(tool.inputSchema as Record<string, unknown>)).toBeLessThanOrEqual(
        MAX_SCHEMA_ENTRIES,
      );
      expect(tool.inputSchema).toMatchObject({
        properties: { body: { properties: { next: { $ref: '#/$defs/S1' }, also: { $ref: '#/$defs/S1' } } } },
        required: ['body'],
      });
    }
    listed = tools;
    expect(
      client
        .stderr()
        .split('\n')
        .filter((line) => line.includes('input schemas list')),
    ).toEqual([expect.stringContaining(warning)]);

    // 90 levels: past the ~30 listed, within what JSON the bridge passes on.
    let body: Record<string, unknown> = { id: 'last', f3: 'deepest' };
    for (let at = 88; at >= 0; at--) body = { id: `level ${at}`, next: body };
    const result = await client.callTool('make5', { body });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(upstream.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /v1/things/5',
    ]);
    expect(JSON.parse(upstream.requests[0]?.body.toString() ?? '')).toEqual(body);
  }

  // The client's close waits for the process to exit, which writes the cache.
  expect(readdirSync(join(cacheDir, 'openapi')).some((name) => name.endsWith('.json'))).toBe(true);
  await using again = await start();
  expect((await again.listTools()).tools).toEqual(listed);
  expect(
    again
      .stderr()
      .split('\n')
      .filter((line) => line.includes('input schemas list')),
  ).toEqual([expect.stringContaining(warning)]);
});
