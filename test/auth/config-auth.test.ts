// `server.auth` in a config file protects `bridge serve` like the --auth flags do.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';

const dir = mkdtempSync(join(tmpdir(), 'bridge-config-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'config-token-0123456789abcdef';
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('server.auth in a config file', () => {
  it('refuses a request without the token and serves one with it', async () => {
    const spec = resolve('fixtures/config/inspect/petstore.yaml');
    const config = join(dir, 'bridge.config.yaml');
    writeFileSync(
      config,
      [
        'server:',
        '  auth:',
        '    mode: token',
        '    tokensEnv: CONFIG_TOKENS',
        'sources:',
        '  - kind: openapi',
        `    options: { spec: ${JSON.stringify(spec)}, baseUrl: "http://127.0.0.1:9" }`,
        '',
      ].join('\n'),
    );
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['serve', config, '--no-watch'],
      env: { CONFIG_TOKENS: `${TOKEN} carol read` },
    });
    const post = (token?: string) =>
      fetch(bridge.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(initialize),
      });
    const refused = await post();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const wrong = await post('not-the-token');
    expect(wrong.status).toBe(401);
    const served = await post(TOKEN);
    expect(served.status).toBe(200);
    expect(bridge.stderr()).not.toContain(TOKEN);
  });
});
