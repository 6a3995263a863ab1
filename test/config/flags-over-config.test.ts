// `--http` on top of a config replaces only the address: the config's body limit still applies.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';

const dir = mkdtempSync(join(tmpdir(), 'bridge-flags-over-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('flags over the config’s server section', () => {
  it('keeps maxBodyBytes from the config when --http moves the address', async () => {
    const config = join(dir, 'bridge.config.yaml');
    const spec = resolve('fixtures/config/inspect/petstore.yaml');
    writeFileSync(
      config,
      [
        'server: { transport: http, port: 1, maxBodyBytes: 2000 }',
        'sources:',
        `  - { kind: openapi, options: { spec: ${JSON.stringify(spec)} } }`,
        '',
      ].join('\n'),
    );
    await using bridge = await startHttpBridge({ script: BRIDGE_BIN, args: ['serve', config, '--no-watch'] });
    const post = (body: string) =>
      fetch(bridge.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
    const small = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect((await post(small)).status).toBe(200);
    expect((await post(JSON.stringify({ padding: 'x'.repeat(3_000) }))).status).toBe(413);
  });
});
