// The stdio transport's reading of lines, on in-memory streams: lines split across chunks (a
// multi-byte character included), several lines in one chunk, malformed and over-long lines
// answered as JSON-RPC says and the connection going on, and the interceptor seeing lines first.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StdioLineTransport } from '../../src/transports/stdio-line-transport.js';

async function open() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioLineTransport(stdin, stdout);
  const received: unknown[] = [];
  const written: Array<Record<string, unknown>> = [];
  let pending = '';
  stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
      written.push(JSON.parse(pending.slice(0, at)) as Record<string, unknown>);
      pending = pending.slice(at + 1);
    }
  });
  transport.onmessage = (message) => received.push(message);
  await transport.start();
  /** Writes each piece as its own chunk, then lets the transport read them. */
  const feed = async (...pieces: Array<string | Buffer>) => {
    for (const piece of pieces) stdin.write(piece);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { transport, received, written, feed };
}

const ping = (id: number | string, extra = '') =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping"${extra}}`;

describe('the stdio line transport', () => {
  it('reads a line split across chunks once, a character cut in two included', async () => {
    const { received, feed } = await open();
    const line = Buffer.from(`${ping('é-1')}\n`);
    const cut = line.indexOf(Buffer.from('é')) + 1; // between the two bytes of "é"
    await feed(line.subarray(0, cut), line.subarray(cut, cut + 3), line.subarray(cut + 3));
    expect(received).toEqual([{ jsonrpc: '2.0', id: 'é-1', method: 'ping' }]);
  });

  it('reads several lines in one chunk, and a line ended in the next chunk', async () => {
    const { received, feed } = await open();
    const third = ping(3);
    await feed(`${ping(1)}\n\n${ping(2)}\n${third.slice(0, 10)}`, `${third.slice(10)}\n`);
    expect(received.map((message) => (message as { id: number }).id)).toEqual([1, 2, 3]);
  });

  it('answers a line that is not JSON, or not JSON-RPC, and goes on', async () => {
    const { received, written, feed } = await open();
    await feed('{oops\n', '{"id":7,"method":"ping"}\n', `${ping(8)}\n`);
    expect(written[0]).toMatchObject({ id: null, error: { code: -32700 } });
    expect(written[1]).toMatchObject({ id: 7, error: { code: -32600 } });
    expect(received).toEqual([{ jsonrpc: '2.0', id: 8, method: 'ping' }]);
  });

  it.each([
    ['in one chunk', 1],
    ['across chunks', 4],
  ])('refuses a line over 10 MiB %s, and reads the next one', async (_label, pieces) => {
    const { received, written, feed } = await open();
    const long = Buffer.from(`${ping(1, `,"params":{"x":"${'a'.repeat(10 * 1024 * 1024)}"}`)}\n${ping(2)}\n`);
    const size = Math.ceil(long.length / pieces);
    await feed(...Array.from({ length: pieces }, (_, i) => long.subarray(i * size, (i + 1) * size)));
    expect(written).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('longer than') } },
    ]);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('shows each parsed line to the interceptor first; what it takes goes no further', async () => {
    const { transport, received, feed } = await open();
    const seen: unknown[] = [];
    transport.interceptor = {
      take: (message) => {
        seen.push(message);
        return (message as { id?: unknown }).id === 1;
      },
      closed: () => {},
    };
    await feed(`${ping(1)}\n${ping(2)}\n`);
    expect(seen).toHaveLength(2);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });
});
