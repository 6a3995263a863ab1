// An initialize-era client subscribes to resources by URI, and every URI a catalog template matches
// names a resource: without bounds, one connection could hold a million subscriptions, or a
// thousand URIs of a megabyte each, for as long as it stays open. A connection holds at most
// 1,024 subscriptions of at most 2,048 characters each, checked before the URI is looked up; what
// it already holds it may subscribe to again, and an unsubscription makes room. Real bridge process
// over stdio, raw JSON lines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineClient } from '../helpers/line-client.js';
import { SESSION_VERSION } from '../helpers/raw-session.js';
import { distPath } from '../helpers/start-bridge.js';

const SERVER = distPath('test/servers/conformance-server.js');
const uri = (id: string) => `test://template/${id}/data`;

interface Answer {
  result?: unknown;
  error?: { code: number; message: string };
}

let client: LineClient;
let id = 0;
const send = async (method: string, params: Record<string, unknown>): Promise<Answer> =>
  JSON.parse(await client.line(++id, method, params)) as Answer;

beforeAll(async () => {
  client = new LineClient([], {}, SERVER);
  await client.line(++id, 'initialize', {
    protocolVersion: SESSION_VERSION,
    capabilities: {},
    clientInfo: { name: 'subscriptions', version: '1' },
  });
  client.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
});
afterAll(async () => {
  await client?.close();
});

describe('resources/subscribe on one connection', () => {
  it('refuses a URI longer than 2,048 characters that a template matches', async () => {
    const longest = uri('a'.repeat(2_048 - uri('').length));
    expect(longest).toHaveLength(2_048);
    expect(await send('resources/subscribe', { uri: longest })).toMatchObject({ result: {} });
    const long = await send('resources/subscribe', { uri: uri('a'.repeat(100_000)) });
    expect(long.error?.code).toBe(-32602);
    expect(long.error?.message).toMatch(/at most 2048 characters/);
    expect(long.error?.message.length).toBeLessThan(1_000);
  });

  it('refuses a URI longer than 2,048 characters before looking it up, matching a template or not', async () => {
    // Looked up first, one that names nothing was "Resource not found" after every template had
    // been matched against it (and, for a stored output's URI, the shared store asked for it).
    for (const long of [`test://nothing/${'a'.repeat(100_000)}`, `bridge://output/${'a'.repeat(999_000)}`]) {
      const answer = await send('resources/subscribe', { uri: long });
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.message).toMatch(/at most 2048 characters/);
    }
  });

  it('holds at most 1,024 subscriptions, one held may be asked for again, an unsubscription makes room', async () => {
    await send('resources/unsubscribe', { uri: uri('a'.repeat(2_048 - uri('').length)) });
    // At once, past the bound: the last ones are refused, not held too.
    const answers = await Promise.all(
      Array.from({ length: 1_030 }, (_, n) => send('resources/subscribe', { uri: uri(String(n)) })),
    );
    expect(answers.slice(0, 1_024).filter((answer) => answer.error)).toEqual([]);
    expect(answers.slice(1_024).map((answer) => answer.error?.code)).toEqual(Array(6).fill(-32602));

    const over = await send('resources/subscribe', { uri: uri('one-more') });
    expect(over.error?.code).toBe(-32602);
    expect(over.error?.message).toMatch(/1024 resources.*unsubscribe/);
    // Full is full: a URI that names nothing is not looked up either.
    const unknown = await send('resources/subscribe', { uri: 'test://nothing' });
    expect(unknown.error?.message).toMatch(/1024 resources.*unsubscribe/);
    expect(await send('resources/subscribe', { uri: uri('7') })).toMatchObject({ result: {} });

    await send('resources/unsubscribe', { uri: uri('7') });
    expect(await send('resources/subscribe', { uri: uri('one-more') })).toMatchObject({ result: {} });
  });
});
