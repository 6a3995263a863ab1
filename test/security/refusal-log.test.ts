// The warning lines of refused requests: one a kind every 10 s, each kind named for what was
// refused, and the count of the lines left out said at shutdown too, where no next line says it.
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startHttpBridge } from '../helpers/start-bridge.js';
import { AUTH_SERVER } from './helpers.js';
import { openSocket, outcome } from './raw-http.js';

/** Sends a POST with a raw Host header and request target; resolves to the status line. */
async function rawRequest(url: URL, target: string, host = url.host): Promise<string> {
  const socket = await openSocket(url);
  const result = outcome(socket);
  const body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
  socket.end(
    `POST ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  );
  return (await result).text.split('\r\n')[0] ?? '';
}

describe('the refusal log', () => {
  it('files each refusal under its own kind, and says at shutdown how many lines it left out', async () => {
    const bridge = await startHttpBridge({
      script: AUTH_SERVER,
      args: ['notes', '--auth-tokens-env', 'T'],
      env: { T: 'good-token-0123456789 alice' },
    });
    try {
      const paths = ['/x/../mcp', '/oauth/..\\mcp', '/oauth/%2e%2e/mcp', '/./mcp', '/oauth%5c..%5cmcp'];
      for (const path of paths) expect(await rawRequest(bridge.url, path)).toMatch(/^HTTP\/1\.1 400 /);
      for (let i = 0; i < 3; i++) {
        expect(await rawRequest(bridge.url, '/mcp', 'localhost@evil.example')).toMatch(/^HTTP\/1\.1 400 /);
      }
      for (let i = 0; i < 2; i++) {
        expect(await rawRequest(bridge.url, 'http://evil.example/mcp')).toMatch(/^HTTP\/1\.1 400 /);
      }
      for (let i = 0; i < 6; i++) {
        const response = await fetch(bridge.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer guess-${i}-0123456789` },
          body: '{}',
        });
        expect(response.status).toBe(401);
      }
    } finally {
      bridge.child.kill('SIGTERM');
      await once(bridge.child, 'close');
    }
    const refusals = bridge
      .stderr()
      .split('\n')
      .filter((line) => line.includes('http: refused'));
    expect(refusals).toEqual([
      'bridge warning: http: refused (path): POST from 127.0.0.1: path "/x/../mcp" holds a dot segment or a backslash',
      'bridge warning: http: refused (Host header): POST from 127.0.0.1: Host "localhost@evil.example"',
      'bridge warning: http: refused (request target): POST from 127.0.0.1: target "http://evil.example/mcp"',
      expect.stringMatching(
        /^bridge warning: http: refused \(authentication\): POST from 127\.0\.0\.1 \(401\): The token is not valid/,
      ),
      // At shutdown, in the order the kinds were first refused: the transport's, then authentication's.
      'bridge warning: http: refused (path): 4 more path refusals not logged',
      'bridge warning: http: refused (Host header): 2 more Host header refusals not logged',
      'bridge warning: http: refused (request target): 1 more request target refusals not logged',
      'bridge warning: http: refused (authentication): 5 more authentication refusals not logged',
    ]);
  });
});
