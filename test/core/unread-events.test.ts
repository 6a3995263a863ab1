import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventSink } from '../../src/server/direct-session-call.js';
import { sendEvents, sendResponse } from '../../src/transports/send-response.js';

// A client that stops reading an event stream is not waited for without bound: past the unread
// bytes allowed, the stream is closed as if the client had gone (it resumes with Last-Event-ID
// from the session's event store). A client that reads gets everything, however much. The same
// holds for the SDK's streams (a web `Response`), which queue what they are given whether or not
// the client reads.

const LIMIT = 256 * 1024;
const EVENT = `data: ${'x'.repeat(1_000)}\n\n`;
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** A server whose one stream writes `total` events (or until its client is gone), a few per tick. */
async function streaming(total: number, event = EVENT) {
  const seen = { written: 0, gone: false, finished: false };
  const listening = createServer((_req, res) => {
    void sendEvents(
      res,
      {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        open(sink: EventSink) {
          const more = () => {
            for (let n = 0; n < 20 && seen.written < total; n++) {
              if (sink.gone) {
                seen.gone = true;
                return;
              }
              sink.write(event);
              seen.written++;
            }
            if (seen.written < total) setImmediate(more);
            else {
              sink.end();
              seen.finished = true;
            }
          };
          more();
        },
      },
      LIMIT,
    );
  });
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return { port: (listening.address() as AddressInfo).port, seen };
}

/**
 * The same as a web `Response` sent with `sendResponse`: its producer queues `total` events, a few
 * per tick, whether or not they are read, until the stream is cancelled.
 */
async function responding(total: number) {
  const seen = { written: 0, gone: false, finished: false, cut: undefined as boolean | undefined };
  const listening = createServer((_req, res) => {
    let stopped = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(EVENT);
        const more = () => {
          if (stopped) return;
          for (let n = 0; n < 20 && seen.written < total; n++) {
            controller.enqueue(bytes);
            seen.written++;
          }
          if (seen.written < total) setImmediate(more);
          else {
            controller.close();
            seen.finished = true;
          }
        };
        more();
      },
      cancel() {
        stopped = true;
        seen.gone = true;
      },
    });
    const response = new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    void sendResponse(res, response, new AbortController().signal, undefined, LIMIT).then((cut) => {
      seen.cut = cut;
    });
  });
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return { port: (listening.address() as AddressInfo).port, seen };
}

describe('an event stream whose client does not read', () => {
  it('is closed past the unread bytes allowed, and nothing more is written to it', async () => {
    const { port, seen } = await streaming(100_000);
    const socket = connect(port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    socket.pause(); // never reads
    await expect.poll(() => seen.gone, { timeout: 10_000 }).toBe(true);
    const written = seen.written;
    // Far fewer than the 100,000 events (~100 MB) it would otherwise hold.
    expect(written).toBeLessThan(20_000);
    await sleep(100);
    expect(seen.written).toBe(written);
    socket.destroy();
  });

  it('sends everything to a client that reads, well past that bound', async () => {
    const total = 2_000; // ~2 MB, eight times the bound
    const { port, seen } = await streaming(total);
    const response = await fetch(`http://127.0.0.1:${port}/`);
    const text = await response.text();
    expect(seen.gone).toBe(false);
    expect(seen.finished).toBe(true);
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(total);
  });

  it('sends one answer larger than the bound whole, the check coming before each write', async () => {
    const answer = `data: ${'y'.repeat(4 * LIMIT)}\n\n`;
    const { port, seen } = await streaming(1, answer);
    const text = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    expect(seen.gone).toBe(false);
    expect(text).toBe(answer);
  });
});

describe('an SDK stream whose client does not read', () => {
  it('is read as it is written and closed past the unread bytes allowed, its producer cancelled', async () => {
    const { port, seen } = await responding(100_000);
    const socket = connect(port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    socket.pause(); // never reads
    await expect.poll(() => seen.gone, { timeout: 10_000 }).toBe(true);
    expect(seen.cut).toBe(true);
    const written = seen.written;
    expect(written).toBeLessThan(20_000);
    await sleep(100);
    expect(seen.written).toBe(written);
    socket.destroy();
  });

  it('sends everything to a client that reads, well past that bound', async () => {
    const total = 2_000;
    const { port, seen } = await responding(total);
    const text = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    expect(seen.finished).toBe(true);
    expect(seen.gone).toBe(false);
    expect(seen.cut).toBe(false);
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(total);
  });
});
