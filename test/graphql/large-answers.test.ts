import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../config/helpers.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';

// Large answers from a real `bridge graphql` process: compact JSON (no newlines) is paged exactly,
// one over 4 MiB is passed on as sent without being parsed (16 million small arrays in 64 MiB took
// 7.6 s to parse, every caller waiting), and an answer past the 64 MiB cap fails that call alone
// while the server goes on answering others.
const SDL = `
  type Item { id: Int! name: String! }
  type Query { items: [Item!]! bulk: [[Int!]!]! broken: String flood: String small: String }
`;
const ITEMS = Array.from({ length: 60_000 }, (_, id) => ({ id, name: `item ${id}` }));
/** ~6 MB of small arrays: over the 4 MiB the bridge parses. */
const BULK = JSON.stringify({ data: { bulk: Array.from({ length: 1_500_000 }, () => [0]) } });
// Far past the 64 MiB the bridge reads: what the socket buffers on both sides take in before the
// bridge hangs up (several MiB on a loaded machine) must not reach the end of it.
const FLOOD_BYTES = 192 * 1024 * 1024;

let upstream: ReturnType<typeof createServer>;
let dir: Awaited<ReturnType<typeof tempDir>>;
let bridge: HttpBridge;
/** Bytes of the flood the upstream managed to write before the bridge hung up, once it stopped. */
let floodStopped: Promise<number>;
let floodStarted: Promise<void>;

beforeAll(async () => {
  let stopped: (bytes: number) => void = () => {};
  let started: () => void = () => {};
  floodStopped = new Promise((resolve) => {
    stopped = resolve;
  });
  floodStarted = new Promise((resolve) => {
    started = resolve;
  });
  upstream = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const query = String(JSON.parse(body).query);
    if (query.includes('broken')) {
      res.writeHead(502, { 'content-type': 'text/html' });
      return void res.end(`<html><title>Bad gateway</title>${'x'.repeat(5 * 1024 * 1024)}</html>`);
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (query.includes('items')) return void res.end(JSON.stringify({ data: { items: ITEMS } }));
    if (query.includes('small')) return void res.end(JSON.stringify({ data: { small: 'ok' } }));
    if (query.includes('bulk')) return void res.end(BULK);
    // The flood: one string, written as fast as the bridge reads it, until it hangs up.
    const chunk = Buffer.alloc(1024 * 1024, 'A');
    let sent = 0;
    res.on('close', () => stopped(sent));
    res.write('{"data":{"flood":"');
    started();
    const pump = () => {
      while (sent < FLOOD_BYTES && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end('"}}');
    };
    pump();
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  dir = await tempDir();
  await writeFile(dir.file('schema.graphql'), SDL);
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/graphql`;
  bridge = await startHttpBridge({
    script: BRIDGE_BIN,
    args: ['graphql', url, '--schema', dir.file('schema.graphql')],
  });
});
afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
  upstream?.closeAllConnections();
  upstream?.close();
  await dir?.[Symbol.asyncDispose]();
});

function call(name: string, args: Record<string, unknown> = {}) {
  return modernRequest(bridge.url, 'tools/call', { name, arguments: args });
}

describe('large GraphQL answers', () => {
  it('pages a compact JSON answer of megabytes so that its pages rebuild it exactly', async () => {
    const result = (await call('items', { select: '{ id name }' })).json?.result;
    const content = (result?.content ?? []) as Array<{ type: string; text?: string; uri?: string }>;
    const note = content.find((block) => block.type === 'text' && block.text?.includes('continues'));
    const pages = Number(/page 1 of (\d+)/.exec(note?.text ?? '')?.[1]);
    const link = content.find((block) => block.type === 'resource_link');
    expect(pages, JSON.stringify(content.slice(1, 3))).toBeGreaterThan(50);
    let rebuilt = content[0]?.text ?? '';
    for (let page = 2; page <= pages; page++) {
      const uri = String(link?.uri).replace(/\/page\/\d+$/, `/page/${page}`);
      // A 2026-07-28 resources/read names its URI in Mcp-Name.
      const read = await modernRequest(
        bridge.url,
        'resources/read',
        { uri },
        { headers: { 'mcp-name': uri } },
      );
      const text = (read.json?.result?.contents as Array<{ text?: string }> | undefined)?.[0]?.text;
      expect(text?.length, `page ${page}: ${read.text.slice(0, 300)}`).toBeLessThanOrEqual(20_000);
      rebuilt += text;
    }
    // Compared whole but reported by length: a diff of megabytes says nothing.
    const expected = JSON.stringify({ items: ITEMS });
    expect(rebuilt === expected, `rebuilt ${rebuilt.length} characters of ${expected.length}`).toBe(true);
  });

  it('passes an answer over 4 MiB on as sent, unparsed, in pages', async () => {
    const result = (await call('bulk')).json?.result;
    expect(result?.isError).toBeFalsy();
    expect(result?.structuredContent).toBeUndefined();
    const content = (result?.content ?? []) as Array<{ type: string; text?: string }>;
    expect(content[0]?.text).toMatch(
      /^bulk: the GraphQL endpoint answered 5\.\d MiB of JSON, more than the 4 MiB the bridge parses: it follows as sent/,
    );
    expect(BULK.startsWith(content[1]?.text ?? 'none')).toBe(true);
    expect(content.some((block) => block.type === 'resource_link')).toBe(true);
  });

  it('reports a failed answer over 4 MiB as the failure it is, not as JSON passed on', async () => {
    const result = (await call('broken')).json?.result;
    expect(result?.isError).toBe(true);
    expect(result?.content?.[0]?.text).toMatch(
      /^broken failed: the GraphQL endpoint .* answered HTTP 502 with/,
    );
  });

  it('fails an answer over 64 MiB, naming the limit, stops reading it, and answers others meanwhile', async () => {
    const flood = call('flood');
    await floodStarted;
    // Another client, while the flood is arriving: answered.
    const [small, list] = await Promise.all([call('small'), modernRequest(bridge.url, 'tools/list', {})]);
    expect(small.json?.result?.content?.[0]?.text).toBe('{"small":"ok"}');
    expect(list.json?.result?.tools).toHaveLength(5);
    const result = (await flood).json?.result;
    expect(result?.isError, JSON.stringify(result).slice(0, 500)).toBe(true);
    expect(result?.content?.[0]?.text).toMatch(/flood failed: .*answered with more than 64 MiB/);
    // The bridge hung up instead of downloading the rest.
    expect(await floodStopped).toBeLessThan(FLOOD_BYTES);
  });
});
