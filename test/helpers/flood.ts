import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Writes `head`, then `chunk` as fast as it is read until `total` bytes or a hang-up, then `tail`.
 * Resolves, once the response is closed, with the bytes of `chunk` it managed to write.
 */
export function pump(
  res: ServerResponse,
  head: string,
  chunk: Buffer,
  total: number,
  tail: string,
): Promise<number> {
  let sent = 0;
  const closed = once(res, 'close').then(() => sent);
  res.write(head);
  const more = () => {
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end(tail);
  };
  more();
  return closed;
}

/** A server whose every answer is an endless JSON-looking body. Close it with `await using`. */
export interface Flood extends AsyncDisposable {
  url: string;
  /** Bytes of body written over all requests, once every answer so far has ended or been hung up on. */
  written(): Promise<number>;
}

/**
 * A node:http server on 127.0.0.1:0 answering every request with 200, `application/json` and
 * `{"access_token":"` followed by spaces as fast as they are read, up to 512 MiB: what a reader
 * without a limit would hold whole.
 */
export async function startFlood(): Promise<Flood> {
  const answers: Array<Promise<number>> = [];
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    answers.push(pump(res, '{"access_token":"', Buffer.alloc(64 * 1024, 0x20), 512 * 1024 * 1024, '"}'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: async () => (await Promise.all(answers)).reduce((sum, sent) => sum + sent, 0),
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A server on 127.0.0.1:0 answering every request with `status` and `body` as JSON. */
export async function startFixedAnswer(
  status: number,
  body: string,
): Promise<AsyncDisposable & { url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
