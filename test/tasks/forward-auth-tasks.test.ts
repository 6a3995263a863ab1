// A tool run as a task calls the API with the same credentials as a direct call: under
// forwardAuth, the MCP client's Authorization header reaches the upstream (which records every
// request's headers) whether the call was answered directly or became a task — in both eras.
import { join } from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { tempDir, writeYaml } from '../config/helpers.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';
import { FIXTURES } from '../openapi/helpers/in-process.js';
import { startUpstream } from '../openapi/helpers/upstream.js';
import { eventually } from './helpers.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const TOKEN = 'Bearer task-client-token';

async function forwardingBridge(forwardAuth: boolean) {
  const upstream = await startUpstream();
  const dir = await tempDir();
  const configFile = dir.file('bridge.yaml');
  await writeYaml(configFile, {
    sources: [
      {
        kind: 'openapi',
        options: { spec: join(FIXTURES, 'api-3.0.yaml'), baseUrl: upstream.url, tools: 'all', forwardAuth },
        tools: { getItem: { taskSupport: 'required' } },
      },
    ],
  });
  const bridge = await startHttpBridge({ script: BRIDGE_BIN, args: ['serve', configFile, '--no-watch'] });
  return {
    upstream,
    bridge,
    async [Symbol.asyncDispose]() {
      await bridge[Symbol.asyncDispose]();
      await upstream.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

// The Authorization header of the upstream's requests for item `id`.
function seenAuthorization(upstream: Awaited<ReturnType<typeof startUpstream>>, id: string) {
  return upstream.requests
    .filter((request) => request.url.endsWith(`/items/${id}`))
    .map((r) => r.headers.authorization);
}

describe('a task under forwardAuth', () => {
  it('forwards the client’s Authorization header (2026-07-28, raw HTTP)', async () => {
    await using setup = await forwardingBridge(true);
    const headers = { authorization: TOKEN };
    const rpc = async (method: string, params: Record<string, unknown>) =>
      (
        await modernRequest(setup.bridge.url, method, params, {
          capabilities: { extensions: { [TASKS]: {} } },
          headers,
        })
      ).json ?? {};
    const created = await rpc('tools/call', { name: 'getItem', arguments: { itemId: '41' } });
    expect(created.result).toMatchObject({ resultType: 'task' });
    const done = await eventually(async () => {
      const reply = await rpc('tasks/get', { taskId: created.result?.taskId });
      return reply.result?.status === 'completed' ? reply.result : undefined;
    });
    expect(JSON.stringify(done.result)).toContain('task-client-token');
    expect(seenAuthorization(setup.upstream, '41')).toEqual([TOKEN]);
  });

  it('forwards it for a 2025-11-25 task of the v1 client', async () => {
    await using setup = await forwardingBridge(true);
    const client = new ClientV1({ name: 'fwd-task', version: '1' });
    await client.connect(
      new HttpV1(setup.bridge.url, { requestInit: { headers: { Authorization: TOKEN } } }),
    );
    try {
      const created = await client.request(
        { method: 'tools/call', params: { name: 'getItem', arguments: { itemId: '42' }, task: {} } },
        CreateTaskResultSchema,
      );
      const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(seenAuthorization(setup.upstream, '42')).toEqual([TOKEN]);
  });

  it('keeps it from the upstream without forwardAuth', async () => {
    await using setup = await forwardingBridge(false);
    const headers = { authorization: TOKEN };
    const rpc = async (method: string, params: Record<string, unknown>) =>
      (
        await modernRequest(setup.bridge.url, method, params, {
          capabilities: { extensions: { [TASKS]: {} } },
          headers,
        })
      ).json ?? {};
    const created = await rpc('tools/call', { name: 'getItem', arguments: { itemId: '43' } });
    await eventually(async () => {
      const reply = await rpc('tasks/get', { taskId: created.result?.taskId });
      return reply.result?.status === 'completed' ? true : undefined;
    });
    expect(seenAuthorization(setup.upstream, '43')).toEqual([undefined]);
  });
});
