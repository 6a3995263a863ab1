// The session lane answers a plain tools/list of an initialize-era HTTP session from the tools'
// kept JSON (the OpenAPI conversion cache), written as the SDK's session transport writes it: the
// priming event, then the answer, both resumable. Each list is sent twice in one session to a real
// bridge started from the cache: plainly (the lane takes it) and with an extra `_meta` key (the
// SDK's), and the streams compared event by event.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawEvent, RawSession, sseEvents } from '../helpers/raw-session.js';
import { BRIDGE_BIN, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';

let dir: string;
let bridge: HttpBridge;
let session: RawSession;

// 520 operations: two pages.
function spec(): object {
  const paths: Record<string, unknown> = {};
  for (let n = 0; n < 520; n++) {
    paths[`/items${n}/{id}`] = {
      get: {
        operationId: `getItem${String(n).padStart(3, '0')}`,
        summary: `Get item ${n}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' } } } },
            },
          },
        },
      },
    };
  }
  return { openapi: '3.0.3', info: { title: 'items', version: '1' }, paths };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-session-list-'));
  const file = join(dir, 'items.json');
  writeFileSync(file, JSON.stringify(spec()));
  const command = {
    script: BRIDGE_BIN,
    args: ['openapi', file, '--tools', 'all', '--base-url', 'http://127.0.0.1:9'],
    env: { BRIDGE_CACHE_DIR: join(dir, 'cache') },
  };
  // The first start converts, and writes the cache a second after start-up; the second serves from it.
  const first = await startHttpBridge(command);
  const cached = () => {
    try {
      return readdirSync(join(dir, 'cache', 'openapi')).some((name) => name.endsWith('.json'));
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 200 && !cached(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(cached()).toBe(true);
  await first[Symbol.asyncDispose]();
  bridge = await startHttpBridge(command);
  session = new RawSession(bridge.url);
  await session.open({});
}, 60_000);

afterAll(async () => {
  await session?.close();
  await bridge?.[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
});

/** The answer a stream ended with. */
const answerOf = (events: RawEvent[]) =>
  (events.at(-1)?.data ?? {}) as {
    result?: { tools: Array<Record<string, unknown>>; nextCursor?: string };
    error?: { code: number };
  };

const comparable = (events: RawEvent[]) =>
  events.map(({ id, data }) => {
    const { id: _id, ...rest } = data ?? {};
    return { hasId: id !== undefined, ...(data ? { data: rest } : {}) };
  });

async function page(id: string, cursor?: string, meta?: object) {
  const { response, events } = await session.request(id, 'tools/list', {
    ...(cursor ? { cursor } : {}),
    ...(meta ? { _meta: meta } : {}),
  });
  return { status: response.status, type: response.headers.get('content-type'), events };
}

describe('tools/list in an initialize-era session, from the cache', () => {
  it('answers every page as the SDK does, event by event', async () => {
    const sdkFirst = await page('sdk-1', undefined, { 'example.com/path': 'sdk' });
    const laneFirst = await page('lane-1');
    const cursor = answerOf(laneFirst.events).result?.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const sdkSecond = await page('sdk-2', cursor, { 'example.com/path': 'sdk' });
    const laneSecond = await page('lane-2', cursor);
    for (const [sdk, lane] of [
      [sdkFirst, laneFirst],
      [sdkSecond, laneSecond],
    ] as const) {
      expect(lane.status).toBe(sdk.status);
      expect(lane.type).toBe(sdk.type);
      expect(comparable(lane.events)).toEqual(comparable(sdk.events));
    }
    // The priming event, then the answer.
    expect(laneFirst.events).toHaveLength(2);
    const tools = answerOf(laneFirst.events).result?.tools ?? [];
    expect(tools).toHaveLength(500);
    // The lane wrote the cache's text as it is (title second); the SDK lists listEntry's order.
    expect(Object.keys(tools[0] as object).slice(0, 2)).toEqual(['name', 'title']);
    const sdkTools = answerOf(sdkFirst.events).result?.tools ?? [];
    expect(Object.keys(sdkTools[0] as object).slice(0, 2)).toEqual(['name', 'description']);
  });

  it('a client that lost the stream resumes it from the priming event and gets the answer', async () => {
    const { events } = await page('lane-resume');
    const priming = events[0]?.id as string;
    expect(priming).toEqual(expect.any(String));
    const resumed: RawEvent[] = [];
    for await (const event of sseEvents(await session.resume(priming))) resumed.push(event);
    expect(resumed.map((event) => event.data)).toEqual([events[1]?.data]);
  });

  it('leaves an unreadable cursor to the SDK, which answers -32602', async () => {
    const { events } = await page('bad', '!!');
    expect(answerOf(events).error?.code).toBe(-32602);
  });
});
