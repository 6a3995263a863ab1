// A 2026-07-28 client whose first message over stdio is a plain `tools/list` is answered by the
// lane, before the SDK has seen a message (src/transports/start-stdio.ts); the SDK pins a
// 2026-07-28 server only when a message the lane leaves arrives. Two real bridge processes get the
// same exchange: one opened by that plain list, the other by a list whose envelope the lane leaves
// to the SDK (a capability it does not read). Every answer must be the same JSON, the pages of a
// 1,050-tool spec included, and so must what follows the lists: an `initialize` (refused on a
// 2026-07-28 connection), a call, a ping. The ping the bridge sends the SDK to pin the connection
// is never answered on the wire.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineClient } from '../helpers/line-client.js';
import { envelope } from '../helpers/modern-request.js';

let work: string;
let spec: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bridge-modern-opening-'));
  spec = join(work, 'many.json');
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < 1_050; i++) {
    paths[`/items${i}/{id}`] = {
      get: {
        operationId: `getItem${i}`,
        summary: `Item ${i}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    };
  }
  writeFileSync(spec, JSON.stringify({ openapi: '3.0.3', info: { title: 'many', version: '1' }, paths }));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** The exchange, with each request's `_meta` from `meta`; every answer as parsed. */
async function exchange(client: LineClient, meta: Record<string, unknown>): Promise<unknown[]> {
  const answers: unknown[] = [];
  let id = 0;
  let cursor: string | undefined;
  do {
    const page = (await client.request(++id, 'tools/list', {
      ...(cursor === undefined ? {} : { cursor }),
      _meta: meta,
    })) as { result?: { nextCursor?: string } };
    answers.push(page);
    cursor = page.result?.nextCursor;
  } while (cursor !== undefined);
  answers.push(
    await client.request(++id, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'late', version: '1' },
    }),
  );
  answers.push(
    await client.request(++id, 'tools/call', {
      name: 'getItem7',
      arguments: { id: 'x' },
      _meta: meta,
    }),
  );
  answers.push(await client.request(++id, 'ping', { _meta: meta }));
  answers.push(await client.request(++id, 'tools/list', { _meta: meta }));
  return answers;
}

describe('a 2026-07-28 client opening a stdio connection with tools/list', () => {
  it('is answered by the lane exactly as by the SDK, and the SDK pins the era after', async () => {
    const args = ['openapi', spec, '--base-url', 'http://127.0.0.1:9', '--tools', 'all', '--timeout', '2000'];
    const plain = envelope({ roots: { listChanged: true }, elicitation: {} }, 'same');
    // `experimental` is a capability the lane does not read: the SDK answers this client's first list.
    const sdkMeta = envelope({ roots: { listChanged: true }, elicitation: {}, experimental: {} }, 'same');
    const lane = new LineClient(args, { BRIDGE_CACHE_DIR: join(work, 'cache') });
    const sdk = new LineClient(args, { BRIDGE_CACHE_DIR: join(work, 'cache') });
    try {
      const [byLane, bySdk] = await Promise.all([exchange(lane, plain), exchange(sdk, sdkMeta)]);
      expect(byLane).toEqual(bySdk);
      // Three pages of 500, 500 and 50 tools, then the rest.
      const pages = byLane.slice(0, 3) as Array<{ result: { tools: unknown[] } }>;
      expect(pages.map((page) => page.result.tools.length)).toEqual([500, 500, 50]);
      const [, , , initialize, call, ping] = byLane as Array<{ error?: unknown; result?: unknown }>;
      expect(initialize?.error).toBeDefined();
      expect(call?.result).toMatchObject({ isError: true });
      // 2026-07-28 has no ping: refused alike (the bridge's own pinning request is one too).
      expect(ping?.error).toMatchObject({ code: -32601 });
      // Only answers to what the client sent: the ping that pinned the connection stays unanswered.
      const ids = lane.lines.map((line) => (JSON.parse(line) as { id?: unknown }).id);
      expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7]);
    } finally {
      await Promise.all([lane.close(), sdk.close()]);
    }
  });

  it('leaves an envelope it does not read, and a bad one, to the SDK', async () => {
    const client = new LineClient(['openapi', spec, '--base-url', 'http://127.0.0.1:9', '--tools', 'all'], {
      BRIDGE_CACHE_DIR: join(work, 'cache'),
    });
    try {
      const missing = (await client.request(1, 'tools/list', {
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
      })) as { error?: { code: number; message: string } };
      expect(missing.error?.code).toBe(-32602);
      expect(missing.error?.message).toMatch(/clientCapabilities/);
      const badInfo = (await client.request(2, 'tools/list', {
        _meta: { ...envelope(), 'io.modelcontextprotocol/clientInfo': { name: 1, version: '1' } },
      })) as { error?: { code: number } };
      expect(badInfo.error?.code).toBe(-32602);
      const good = (await client.request(3, 'tools/list', { _meta: envelope() })) as {
        result?: { tools: unknown[] };
      };
      expect(good.result?.tools).toHaveLength(500);
    } finally {
      await client.close();
    }
  });
});
