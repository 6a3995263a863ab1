// An initialize-era client whose plain `initialize` the stdio lane answers (src/transports/
// start-stdio.ts) must see what a client the SDK initialized sees, whatever it sends next, and in
// the order it sent it. Real bridge processes on stdio, a raw JSON-lines client.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineClient } from '../helpers/line-client.js';
import { envelope } from '../helpers/modern-request.js';

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bridge-lane-opening-'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** An OpenAPI spec with one GET operation per id. */
const spec = (...ids: string[]) =>
  JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'opening', version: '1' },
    paths: Object.fromEntries(
      ids.map((id) => [`/${id}`, { get: { operationId: id, responses: { '200': { description: 'ok' } } } }]),
    ),
  });

const initialize = (capabilities: object) => ({
  protocolVersion: '2025-11-25',
  capabilities,
  clientInfo: { name: 'opening', version: '1' },
});

/** A bridge serving its own spec file, which the test rewrites to change the tools. */
function bridge(name: string) {
  const file = join(work, `${name}.json`);
  writeFileSync(file, spec('getA'));
  const client = new LineClient(['openapi', file, '--base-url', 'http://127.0.0.1:9'], {
    BRIDGE_CACHE_DIR: join(work, 'cache'),
  });
  return { client, file };
}

describe('a stdio connection the lane initialized', () => {
  // After the lane's `initialize`, a request carrying a 2026-07-28 envelope (or claiming a revision
  // the SDK does not serve) must not make the SDK pin a 2026-07-28 server (or refuse it): the
  // connection stays in the era its `initialize` chose, as it does when the SDK answered the
  // `initialize` (a capability the lane does not read).
  it.each([
    ['a 2026-07-28 envelope', envelope()],
    ['an unsupported revision', { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }],
  ])('stays initialize-era when the next request carries %s, as an SDK-opened one', async (_, meta) => {
    const exchange = async (name: string, capabilities: object) => {
      const { client, file } = bridge(name);
      try {
        const answers: unknown[] = [];
        answers.push(await client.request(1, 'initialize', initialize(capabilities)));
        client.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
        answers.push(await client.request(2, 'tools/list', { _meta: meta }));
        answers.push(await client.request(3, 'ping', {}));
        answers.push(await client.request(4, 'tools/list', {}));
        writeFileSync(file, spec('getA', 'getB'));
        answers.push(await client.seen((line) => line.method === 'notifications/tools/list_changed'));
        answers.push(await client.request(5, 'tools/list', {}));
        return answers;
      } finally {
        await client.close();
      }
    };
    // `experimental` is a capability the lane does not read: the SDK answers that `initialize`.
    const [byLane, bySdk] = await Promise.all([exchange('lane', {}), exchange('sdk', { experimental: {} })]);
    const [, , ping, , changed, after] = byLane as Array<{ result?: { tools?: Array<{ name: string }> } }>;
    expect(ping).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect(changed).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(after?.result?.tools?.map((tool) => tool.name)).toEqual(['getA', 'getB']);
    expect(byLane).toEqual(bySdk);
  });
});
