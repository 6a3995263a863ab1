import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isUnsafeUrl } from '@apidevtools/json-schema-ref-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RemoteRefResolver, remoteRefResolver } from '../../adapters/openapi/fetch-remote-ref.js';

// How one referenced document is fetched (`--allow-remote-refs`). Every server a test can start is
// local, which the bridge refuses (remote-refs.test.ts), so these allow 127.0.0.1 alone, as an
// address and in URLs, and test the rest: redirects, the size bound, the deadline.
let server: Server;
let base: string;
let requested: string[];
let routes: Record<string, (response: ServerResponse) => void>;
let fetcher: RemoteRefResolver;

beforeEach(async () => {
  requested = [];
  routes = {};
  server = createServer((request, response) => {
    requested.push(request.url ?? '');
    const route = routes[request.url ?? ''];
    if (route) return route(response);
    response.statusCode = 404;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await fetcher?.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const withFetcher = async (settings: { timeoutMs?: number; totalMs?: number; maxBytes?: number } = {}) => {
  fetcher = await remoteRefResolver({
    timeoutMs: settings.timeoutMs ?? 5_000,
    totalMs: settings.totalMs ?? 10_000,
    bytes: { bytesLeft: settings.maxBytes ?? 1_000_000 },
    allowAddress: (address) => address === '127.0.0.1',
    // The parser's URL check, but for the test server's own address.
    allowUrl: (url) => new URL(url).hostname === '127.0.0.1' || !isUnsafeUrl(url),
  });
  return (url: string) => fetcher.resolver.read({ url });
};
const json = (body: unknown) => (response: ServerResponse) => {
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify(body));
};
const redirect = (to: string) => (response: ServerResponse) => {
  response.writeHead(302, { location: to });
  response.end();
};

describe('fetching a referenced document', () => {
  it('reads only http(s) URLs', async () => {
    await withFetcher();
    expect(fetcher.resolver.canRead({ url: 'https://example.com/a.json' })).toBe(true);
    expect(fetcher.resolver.canRead({ url: 'file:///etc/passwd' })).toBe(false);
  });

  it('returns the body, through redirects', async () => {
    const read = await withFetcher();
    routes['/old.json'] = redirect('/moved/new.json');
    routes['/moved/new.json'] = json({ type: 'string' });
    expect(JSON.parse(String(await read(`${base}/old.json`)))).toEqual({ type: 'string' });
    expect(requested).toEqual(['/old.json', '/moved/new.json']);
  });

  it('does not follow a redirect to a refused address, and says where it led', async () => {
    const read = await withFetcher();
    routes['/hop.json'] = redirect(`http://127.0.0.2:${new URL(base).port}/secret.json`);
    await expect(read(`${base}/hop.json`)).rejects.toThrow(
      `cannot fetch ${base}/hop.json (redirected to http://127.0.0.2:${new URL(base).port}/secret.json): 127.0.0.2 is not a public address`,
    );
    expect(requested).toEqual(['/hop.json']);
  });

  it('does not follow a redirect to a local name', async () => {
    const read = await withFetcher();
    routes['/hop.json'] = redirect(`http://localhost:${new URL(base).port}/secret.json`);
    await expect(read(`${base}/hop.json`)).rejects.toThrow(
      'the URL names a local host or an internal service port',
    );
    expect(requested).toEqual(['/hop.json']);
  });

  it('stops after five redirects', async () => {
    const read = await withFetcher();
    for (let i = 0; i < 7; i++) routes[`/r${i}`] = redirect(`/r${i + 1}`);
    await expect(read(`${base}/r0`)).rejects.toThrow('more than 5 redirects');
    expect(requested).toHaveLength(6);
  });

  it('fails on an error status, naming it', async () => {
    const read = await withFetcher();
    await expect(read(`${base}/missing.json`)).rejects.toThrow(
      `cannot fetch ${base}/missing.json: the server answered HTTP 404`,
    );
  });

  it('stops reading a body past the size bound', async () => {
    const read = await withFetcher({ maxBytes: 64 * 1024 });
    let written = 0;
    let closed = false;
    routes['/endless.json'] = (response) => {
      response.on('close', () => {
        closed = true;
      });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const more = () => {
        while (!closed && written < 64 * 2 ** 20 && response.write(chunk)) written += chunk.length;
        if (!closed && written < 64 * 2 ** 20) response.once('drain', more);
      };
      response.write('[');
      more();
    };
    await expect(read(`${base}/endless.json`)).rejects.toThrow('larger than the bridge reads for one spec');
    // The connection is dropped: the server stops long before its 64 MiB.
    await expect.poll(() => closed).toBe(true);
    expect(written).toBeLessThan(16 * 2 ** 20);
  });

  it('gives up on a body that never ends, at the deadline', async () => {
    const read = await withFetcher({ timeoutMs: 300 });
    routes['/slow.json'] = (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"type":');
    };
    const started = performance.now();
    await expect(read(`${base}/slow.json`)).rejects.toThrow(
      `cannot fetch ${base}/slow.json: no whole answer within 0.3 s`,
    );
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('bounds what all the references of one spec read together, and how long they take', async () => {
    const read = await withFetcher({ maxBytes: 5_000 });
    routes['/part.json'] = json({ pad: 'x'.repeat(2_000) });
    await read(`${base}/part.json`);
    await read(`${base}/part.json`);
    // Each fits on its own; the third is past what the load may read.
    await expect(read(`${base}/part.json`)).rejects.toThrow('larger than the bridge reads for one spec');
    await fetcher.close();
    const readSlowly = await withFetcher({ totalMs: 600, timeoutMs: 5_000 });
    routes['/slow.json'] = (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"type":');
    };
    await expect(readSlowly(`${base}/slow.json`)).rejects.toThrow(
      'the references took more than 0.6 s together',
    );
  });
});
