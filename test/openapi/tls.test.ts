import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { firstText, loadTools } from './helpers/in-process.js';

// An HTTPS upstream with a self-signed certificate: the call fails as a TLS failure, not retried.
let server: Server;
let dir: string;
let hits = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-tls-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'].concat([
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]),
    { stdio: 'ignore' },
  );
  server = createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (_, res) => {
      hits++;
      res.end('{}');
    },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

it('reports a certificate it cannot trust as a TLS failure that a retry will not fix', async () => {
  const { port } = server.address() as AddressInfo;
  const tools = await loadTools({
    spec: 'api-3.0.yaml',
    baseUrl: `https://127.0.0.1:${port}/v1`,
    tools: 'all',
  });
  try {
    const result = await tools.call('getItem', { itemId: '1' });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(
      /TLS failure talking to https:\/\/127\.0\.0\.1:\d+ .*retrying will not help/,
    );
    expect(hits).toBe(0);
  } finally {
    await tools.close();
  }
});
