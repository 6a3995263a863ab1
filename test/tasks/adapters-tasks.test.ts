// Every adapter's tools run as tasks through the same path: an OpenAPI operation and a GraphQL field
// made task-capable by config overrides, served by the real `bridge serve`, called as tasks by the v1
// client (2025-11-25) and as a raw 2026-07-28 client over HTTP.
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { writeYaml } from '../config/helpers.js';
import { startUpstreams } from '../config/upstreams.js';
import { connect } from '../helpers/connect.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';
import { eventually } from './helpers.js';

const TASKS = 'io.modelcontextprotocol/tasks';

async function taskConfig() {
  const upstreams = await startUpstreams();
  upstreams.config.sources[0]!.tools = { listItems: { taskSupport: 'optional' } };
  upstreams.config.sources[1]!.tools = { titles: { taskSupport: 'required' } };
  await writeYaml(upstreams.configFile, upstreams.config);
  return upstreams;
}

describe('OpenAPI and GraphQL tools as tasks', () => {
  it('run as 2025-11-25 tasks with the v1 client over stdio', async () => {
    await using upstreams = await taskConfig();
    await using client = await connect('v1', 'stdio', {
      script: BRIDGE_BIN,
      args: ['serve', upstreams.configFile],
      cwd: upstreams.dir.path,
      env: { BRIDGE_CACHE_DIR: upstreams.dir.file('.cache') },
    });
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution]));
    expect(support).toMatchObject({
      rest_listItems: { taskSupport: 'optional' },
      gql_titles: { taskSupport: 'required' },
    });
    const v1 = client.raw as import('@modelcontextprotocol/sdk/client/index.js').Client;
    for (const [name, expected] of [
      ['rest_listItems', 'bolt'],
      ['gql_titles', 'Dune'],
    ] as const) {
      const created = await v1.request(
        { method: 'tools/call', params: { name, arguments: {}, task: {} } },
        CreateTaskResultSchema,
      );
      const result = await v1.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain(expected);
    }
    // The plain call path still works for the optional tool.
    expect(JSON.stringify((await client.callTool('rest_listItems')).content)).toContain('bolt');
  });

  it('run as 2026-07-28 tasks over HTTP', async () => {
    await using upstreams = await taskConfig();
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['serve', upstreams.configFile],
      cwd: upstreams.dir.path,
      env: { BRIDGE_CACHE_DIR: upstreams.dir.file('.cache') },
    });
    const rpc = async (method: string, params: Record<string, unknown>) =>
      (await modernRequest(bridge.url, method, params, { capabilities: { extensions: { [TASKS]: {} } } }))
        .json ?? {};
    const created = await rpc('tools/call', { name: 'gql_titles', arguments: {} });
    expect(created.result).toMatchObject({ resultType: 'task' });
    const done = await eventually(async () => {
      const reply = await rpc('tasks/get', { taskId: created.result?.taskId });
      return reply.result?.status === 'completed' ? reply.result : undefined;
    });
    expect(JSON.stringify(done.result)).toContain('Emma');
  });
});
