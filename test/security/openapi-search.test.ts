// `search_operations` runs on the event loop every caller shares, so its cost must be bounded by
// what the bridge allows, not by what a caller sends: the query has a maximum length, only its
// first 32 distinct words are searched for, and the words of the operations are indexed once.
// A real bridge over HTTP with 300 operations, one caller sending the largest queries it may (as
// many at once as it may) while another caller searches in a session of its own.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_BIN, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { connectWithHeaders } from './helpers.js';

const OPERATIONS = 300;

// A word of letters only (the search splits on digits too): 0 → "aaa", 1 → "aab", …
const letters = (n: number) =>
  [2, 1, 0].map((place) => String.fromCharCode(97 + (Math.floor(n / 26 ** place) % 26))).join('');
// The one word only operation `n`'s summary holds.
const marker = (n: number) => `marker${letters(n)}`;

let dir: string;
let bridge: HttpBridge;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-search-'));
  const paths: Record<string, unknown> = {};
  for (let n = 0; n < OPERATIONS; n++) {
    paths[`/things/${letters(n)}`] = {
      get: {
        operationId: `getThing${n}`,
        summary: `Get thing ${marker(n)}`,
        tags: ['things'],
        description: 'Returns one thing of the collection, with its parts and their owners.',
        responses: { '200': { description: 'ok' } },
      },
    };
  }
  const spec = join(dir, 'things.json');
  writeFileSync(spec, JSON.stringify({ openapi: '3.0.3', info: { title: 'Things', version: '1' }, paths }));
  bridge = await startHttpBridge({
    script: BRIDGE_BIN,
    args: ['openapi', spec, '--tools', 'dynamic', '--no-cache', '--base-url', 'http://127.0.0.1:9'],
  });
});

afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
});

type Result = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const text = (result: Result) => result.content.map((block) => block.text ?? '').join('\n');

describe('search_operations bounds its work', () => {
  it('refuses a query over 1,000 characters and an operation name over 64 before searching', async () => {
    await using client = await connectWithHeaders('v1', bridge.url);
    const long = (await client.callTool('search_operations', {
      query: `${marker(3)} ${'x'.repeat(1_000)}`,
    })) as Result;
    expect(long.isError).toBe(true);
    expect(text(long)).toMatch(/query.*at most 1000 characters/);
    expect(text(long)).not.toContain('getThing3');
    const name = (await client.callTool('describe_operation', { operation: 'g'.repeat(65) })) as Result;
    expect(name.isError).toBe(true);
    expect(text(name)).toMatch(/operation.*at most 64 characters/);
  });

  it('searches for the first 32 distinct words only, and says how many it left out', async () => {
    await using client = await connectWithHeaders('v1', bridge.url);
    const fillers = Array.from({ length: 32 }, (_, n) => `filler${letters(n)}`);
    // The 33rd distinct word would find operation 7; repeating a filler does not use up a place.
    const late = (await client.callTool('search_operations', {
      query: [...fillers, fillers[0], marker(7)].join(' '),
    })) as Result;
    expect(late.isError).toBeFalsy();
    expect(text(late)).not.toContain('getThing7');
    expect(text(late)).toContain('No operation matches');
    expect(text(late)).toContain('(1 more words ignored: only the first 32 distinct words count)');
    // The same words with the marker among the first 32: found, and nothing said about ignoring.
    const early = (await client.callTool('search_operations', {
      query: [marker(7), ...fillers.slice(1)].join(' '),
    })) as Result;
    expect(text(early).split('\n')[0]).toMatch(/^getThing7: GET \/things\/aah — Get thing markeraah/);
    expect(text(early)).not.toContain('ignored');
  });

  it("answers another caller's search beside 32 of the largest queries, each cut to 32 words", async () => {
    await using attacker = await connectWithHeaders('v1', bridge.url);
    await using victim = await connectWithHeaders('v1', bridge.url);
    expect(victim.sessionId()).not.toBe(attacker.sessionId());
    // 200 distinct words, 999 characters: every word but the first 32 is left out.
    const words = Array.from({ length: 200 }, (_, n) => `t${letters(n)}`);
    const query = words.join(' ');
    expect(query.length).toBeLessThanOrEqual(1_000);
    const floods = Array.from(
      { length: 32 },
      () => attacker.callTool('search_operations', { query }) as Promise<Result>,
    );
    const answer = (await victim.callTool('search_operations', { query: `thing ${marker(42)}` })) as Result;
    expect(text(answer).split('\n')[0]).toMatch(/^getThing42: GET \/things\/abq/);
    for (const flood of await Promise.all(floods)) {
      expect(flood.isError).toBeFalsy();
      expect(text(flood)).toContain('(168 more words ignored: only the first 32 distinct words count)');
    }
  });
});
