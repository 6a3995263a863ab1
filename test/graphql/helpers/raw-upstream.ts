import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An endpoint that answers as its handler says, GraphQL or not. Close it with `await using`. */
export interface RawUpstream extends AsyncDisposable {
  url: string;
}

/**
 * A node:http server on 127.0.0.1:0 that reads each request's JSON body and hands the GraphQL
 * `query` to `answer`, which writes whatever it likes (an endless body, none at all). Disposing
 * it closes every connection, those left hanging included.
 */
export async function startRawUpstream(
  answer: (query: string, res: ServerResponse, req: IncomingMessage) => void,
): Promise<RawUpstream> {
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    answer(String(JSON.parse(body).query), res, req);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
