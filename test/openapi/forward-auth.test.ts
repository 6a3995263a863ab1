import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';
import { FIXTURES } from './helpers/in-process.js';
import { startUpstream, type Upstream } from './helpers/upstream.js';

// The MCP client's own Authorization header, over real HTTP, with both SDK generations.
let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(async () => {
  await upstream?.close();
});

async function callWithClientToken(kind: 'v1' | 'v2', flags: string[]): Promise<Record<string, string>> {
  await using bridge = await startHttpBridge({
    script: BRIDGE_BIN,
    args: ['openapi', join(FIXTURES, 'api-3.0.yaml'), '--base-url', upstream.url, '--tools', 'all', ...flags],
  });
  const requestInit = { headers: { Authorization: 'Bearer mcp-client-token' } };
  const client =
    kind === 'v1'
      ? new ClientV1({ name: 'fwd', version: '1' })
      : new ClientV2({ name: 'fwd', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const transport =
    kind === 'v1' ? new HttpV1(bridge.url, { requestInit }) : new HttpV2(bridge.url, { requestInit });
  await (client as ClientV1).connect(transport as HttpV1);
  try {
    const result = (await (client as ClientV1).callTool({
      name: 'getItem',
      arguments: { itemId: '1' },
    })) as unknown as {
      structuredContent: { headers: Record<string, string> };
    };
    return result.structuredContent.headers;
  } finally {
    await client.close();
  }
}

describe.each(['v1', 'v2'] as const)('the %s client over HTTP', (kind) => {
  it('keeps its Authorization header away from the upstream by default', async () => {
    expect((await callWithClientToken(kind, [])).authorization).toBeUndefined();
  });

  it('has it forwarded with --forward-auth', async () => {
    expect((await callWithClientToken(kind, ['--forward-auth'])).authorization).toBe(
      'Bearer mcp-client-token',
    );
  });
});
