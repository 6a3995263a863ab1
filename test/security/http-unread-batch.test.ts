import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../config/helpers.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';
import { openSocket, postHead, rssOf } from './raw-http.js';

const GITHUB_SPEC = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');

// A batch of a hundred tools/list requests asks for ~60 MB of answers in one POST. The SDK's
// session transport queues every answer in the request's event stream whether or not the client
// reads it: a client that never read held them all in the bridge's memory (~230 MB a connection
// for a 2.7 MB list), and 256 such connections from one address could take tens of gigabytes.
// Now the stream is closed once 8 MiB are left unread for 2 s (or 32 MiB at all), as the
// bridge's own streams are.
// GitHub's tools over HTTP, and a 2025-03-26 session (the last revision with batches) opened on it.
async function githubSession(dir: string) {
  const server = await startHttpBridge({
    script: BRIDGE_BIN,
    args: ['openapi', GITHUB_SPEC, '--tools', 'all', '--base-url', 'http://127.0.0.1:9'],
    env: { BRIDGE_CACHE_DIR: dir },
  });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const initialized = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'batch', version: '1' },
    },
  });
  const session = initialized.headers.get('mcp-session-id') ?? '';
  await initialized.text();
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-03-26' };
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
  return { server, post, headers };
}

const listBatch = (count: number) =>
  Array.from({ length: count }, (_, n) => ({ jsonrpc: '2.0', id: n + 2, method: 'tools/list' }));

describe('a batch whose answers are never read', () => {
  it('is cut off past the unread bound, and the bridge keeps serving', { timeout: 60_000 }, async () => {
    await using dir = await tempDir();
    const { server, post, headers } = await githubSession(dir.path);
    await using _server = server;
    // One page read whole: what a hundred of them weigh.
    const page = await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers)).text();
    const whole = 100 * page.length;
    expect(whole).toBeGreaterThan(40 * 2 ** 20);

    const batch = JSON.stringify(listBatch(100));
    const socket = await openSocket(server.url);
    socket.on('error', () => {});
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.pause(); // never reads while the bridge writes
    socket.write(postHead(server.url, Buffer.byteLength(batch), headers) + batch);
    await expect.poll(() => server.stderr(), { timeout: 30_000 }).toContain('more than 8 MiB left unread');
    // What reached the client before the bridge closed the stream: far from the whole batch.
    let received = 0;
    let last = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      last = chunk.toString('latin1').slice(-200);
    });
    socket.resume();
    await closed;
    expect(received).toBeLessThan(whole / 2);
    expect(last).not.toContain('"id":101');
    // The bridge holds no more than the bound and its socket buffers for it, and still answers.
    expect(rssOf(server.child.pid ?? 0)).toBeLessThan(400 * 2 ** 20);
    const again = await post({ jsonrpc: '2.0', id: 200, method: 'ping' }, headers);
    expect(await again.text()).toContain('"id":200');
  });

  // A burst is written faster than any socket takes it: the bound is on what a client leaves
  // unread for long, so one that reads gets the whole batch (~23 MiB), however fast it came.
  it('reaches a client that reads, whole', { timeout: 60_000 }, async () => {
    await using dir = await tempDir();
    const { server, post, headers } = await githubSession(dir.path);
    await using _server = server;
    const answered = await post(listBatch(40), headers);
    const text = await answered.text();
    const ids = new Set([...text.matchAll(/"jsonrpc":"2\.0","id":(\d+)/g)].map((match) => match[1]));
    expect(ids.size).toBe(40);
    expect(text.length).toBeGreaterThan(20 * 2 ** 20);
    expect(server.stderr()).not.toContain('left unread');
  });

  // Under the 32 MiB ceiling a client is judged by the 2 s grace, which may pass after the
  // stream has ended: the cut is logged all the same.
  it('is cut and logged after the grace when it stays under the ceiling', { timeout: 60_000 }, async () => {
    await using dir = await tempDir();
    const { server, headers } = await githubSession(dir.path);
    await using _server = server;
    const batch = JSON.stringify(listBatch(40));
    const socket = await openSocket(server.url);
    socket.on('error', () => {});
    socket.pause(); // never reads
    socket.write(postHead(server.url, Buffer.byteLength(batch), headers) + batch);
    await expect.poll(() => server.stderr(), { timeout: 30_000 }).toContain('more than 8 MiB left unread');
    socket.destroy();
  });
});
