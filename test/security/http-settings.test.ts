// The HTTP protections come from a config file as from flags (server.limits, server.auth), and
// flags given on the command line win. Each row is a setting and the refusal that proves it applies.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';
import { openSocket, outcome, postHead } from './raw-http.js';

const dir = mkdtempSync(join(tmpdir(), 'bridge-http-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(name: string, server: string): string {
  const file = join(dir, `${name}.yaml`);
  const spec = resolve('fixtures/config/inspect/petstore.yaml');
  writeFileSync(
    file,
    [
      `server: ${server}`,
      'sources:',
      `  - { kind: openapi, options: { spec: ${JSON.stringify(spec)} } }`,
      '',
    ].join('\n'),
  );
  return file;
}

async function slowBody(url: URL): Promise<string> {
  const socket = await openSocket(url);
  const result = outcome(socket);
  socket.write(postHead(url, 1000));
  socket.write('{');
  return (await result).text;
}

describe('HTTP protections from the config file', () => {
  it('server.limits.bodyTimeoutMs applies, and --body-timeout-ms wins over it', async () => {
    const file = config('limits', '{ transport: http, port: 1, limits: { bodyTimeoutMs: 700 } }');
    {
      await using bridge = await startHttpBridge({ script: BRIDGE_BIN, args: ['serve', file, '--no-watch'] });
      expect(await slowBody(bridge.url)).toMatch(/^HTTP\/1\.1 408 [\s\S]*within 700 ms/);
    }
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['serve', file, '--no-watch', '--body-timeout-ms', '900'],
    });
    expect(await slowBody(bridge.url)).toMatch(/within 900 ms/);
  });

  it('server.auth.trustIdentityHeader with trustedProxies elsewhere refuses this peer', async () => {
    const file = config(
      'proxy',
      '{ transport: http, port: 1, auth: { trustIdentityHeader: X-Forwarded-User, trustedProxies: [10.1.2.3] } }',
    );
    await using bridge = await startHttpBridge({ script: BRIDGE_BIN, args: ['serve', file, '--no-watch'] });
    const reply = await modernRequest(
      bridge.url,
      'tools/list',
      {},
      { headers: { 'x-forwarded-user': 'alice' } },
    );
    expect(reply.status).toBe(403);
    expect(reply.json?.error?.message).toMatch(/127\.0\.0\.1 is not a trusted proxy/);
  });

  it('server.auth.trustIdentityHeader without trustedProxies does not start', async () => {
    const file = config(
      'no-proxies',
      '{ transport: http, port: 1, auth: { trustIdentityHeader: X-Forwarded-User } }',
    );
    await expect(
      startHttpBridge({ script: BRIDGE_BIN, args: ['serve', file, '--no-watch'] }),
    ).rejects.toThrow(/needs --trusted-proxy/);
  });
});
