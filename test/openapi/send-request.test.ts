// How the sender reads an upstream's answer: the whole body, a body over the limit, a body cut off
// mid-way, and a cancel or deadline while the body is still arriving. A real HTTP server on port 0.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpSender } from '../../adapters/openapi/send-request.js';

let server: Server;
let origin: string;
const sender = new HttpSender();

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/chunks') {
      // Three chunks, so the body arrives in pieces.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('a'.repeat(1000));
      setTimeout(() => res.write('b'.repeat(1000)), 10);
      setTimeout(() => res.end('c'.repeat(1000)), 20);
    } else if (req.url === '/cut') {
      // Declares more than it sends, then drops the connection.
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' });
      res.write('x'.repeat(100), () => setTimeout(() => req.socket.destroy(), 10));
    } else if (req.url === '/drip') {
      // Headers, then a body that never ends.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first');
    } else {
      res.end('ok');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await sender.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const get = (
  path: string,
  options: { signal?: AbortSignal; timeoutMs?: number; maxBodyBytes?: number } = {},
) =>
  sender.send(
    { method: 'GET', origin, path, headers: {} },
    {
      timeoutMs: options.timeoutMs ?? 5_000,
      retries: 0,
      idempotent: true,
      signal: options.signal ?? new AbortController().signal,
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    },
  );

describe('reading the upstream body', () => {
  it('reads a body sent in several chunks whole', async () => {
    const response = await get('/chunks');
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe(`${'a'.repeat(1000)}${'b'.repeat(1000)}${'c'.repeat(1000)}`);
  });

  it('fails a body larger than the limit, saying the limit', async () => {
    await expect(get('/chunks', { maxBodyBytes: 1500 })).rejects.toThrow(
      'the response body is larger than 1500 bytes',
    );
    // The sender still serves.
    expect((await get('/')).body.toString()).toBe('ok');
  });

  it('fails a body cut off before its end instead of waiting for it', async () => {
    await expect(get('/cut')).rejects.toThrow(/failed/);
  });

  it('stops reading when the call is cancelled mid-body', async () => {
    const controller = new AbortController();
    const answer = get('/drip', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(answer).rejects.toThrow('The call was cancelled.');
  });

  it('stops reading at the deadline mid-body', async () => {
    await expect(get('/drip', { timeoutMs: 100 })).rejects.toThrow(/did not answer within 100 ms/);
  });
});
