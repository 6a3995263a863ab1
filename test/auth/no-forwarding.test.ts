import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';
import { connectWithToken } from './token-clients.js';

// The token a client presents to the bridge is for the bridge alone (MCP authorization spec:
// servers MUST NOT pass it through). Checked with the real `bridge openapi` command in front of a
// real upstream that records what it receives.
const TOKEN = 'client-token-0123456789abcdef';
const seen: IncomingHttpHeaders[] = [];
const upstream = createServer((request, response) => {
  seen.push(request.headers);
  response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});
let dir: string;
let spec: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  dir = mkdtempSync(join(tmpdir(), 'bridge-auth-forward-'));
  spec = join(dir, 'ping.json');
  writeFileSync(
    spec,
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'ping', version: '1' },
      servers: [{ url: `http://127.0.0.1:${port}` }],
      paths: {
        '/ping': {
          get: {
            operationId: 'ping',
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
            },
          },
        },
      },
    }),
  );
});

afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

async function callPing(extraArgs: string[]) {
  seen.length = 0;
  await using bridge = await startHttpBridge({
    script: BRIDGE_BIN,
    args: ['openapi', spec, '--auth-tokens-env', 'BRIDGE_TEST_TOKENS', ...extraArgs],
    env: { BRIDGE_TEST_TOKENS: `${TOKEN} tester read` },
  });
  await using client = await connectWithToken('v2', bridge.url, TOKEN);
  const result = await client.callTool('ping');
  expect(JSON.stringify(result.content)).toContain('ok');
  expect(seen).toHaveLength(1);
  return seen[0] as IncomingHttpHeaders;
}

describe('the client token and the upstream', () => {
  it('does not reach the upstream API by default', async () => {
    const headers = await callPing([]);
    expect(headers.authorization).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain(TOKEN);
  });

  it('reaches it only when the source is configured to pass it through (--forward-auth)', async () => {
    const headers = await callPing(['--forward-auth']);
    expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
  });
});
