import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDocument } from '../../adapters/openapi/load-document.js';

// A spec URL whose server answers badly: an error status is reported without reading the body,
// and a body without end fails at a bound instead of filling memory.
let server: Server | undefined;

async function serve(listener: RequestListener): Promise<string> {
  server = createServer(listener);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.json`;
}

afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

describe('fetching a spec by URL', () => {
  it('names the status of an error answer', async () => {
    const url = await serve((_request, response) => {
      response.statusCode = 404;
      response.end('not here');
    });
    await expect(loadDocument(url, '/')).rejects.toThrow(
      `cannot fetch the OpenAPI spec ${url}: the server answered HTTP 404`,
    );
  });

  it('sends the user info of the URL as Basic credentials', async () => {
    const seen: Array<string | undefined> = [];
    const url = await serve((request, response) => {
      seen.push(request.headers.authorization);
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} }));
    });
    const withUser = url.replace('http://', 'http://alice:s%40cret@');
    const loaded = await loadDocument(withUser, '/');
    expect(seen).toEqual([`Basic ${Buffer.from('alice:s@cret').toString('base64')}`]);
    expect(loaded.document.info).toEqual({ title: 't', version: '1' });
  });

  it('stops reading a body that never ends, at 256 MiB', async () => {
    const chunk = Buffer.alloc(2 ** 20, ' ');
    const url = await serve((_request, response) => {
      response.on('error', () => {});
      const write = () => {
        while (response.write(chunk)) {}
      };
      response.on('drain', write);
      response.write('{');
      write();
    });
    await expect(loadDocument(url, '/')).rejects.toThrow(
      `cannot fetch the OpenAPI spec ${url}: the body is larger than 256 MiB`,
    );
  }, 60_000);
});
