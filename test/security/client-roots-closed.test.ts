// A client that offers roots confines a call to them even when they cannot all be used: an entry
// that is no local file URL (a file://host/ share) is skipped, and when none is left, or roots/list
// fails, the call is refused rather than run without the client's confinement. Both eras agree.
// Real bridge processes and SDK clients, and a fixture CLI that records where it ran.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { tempDir } from '../cli/helpers.js';
import { connect, MATRIX } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

const WHERE_CLI = fileURLToPath(new URL('../../fixtures/cli/where-cli.mjs', import.meta.url));
const SHARE = 'file://fileserver/share';

describe.each(MATRIX)('client roots that cannot all be used ($kind client, $wire)', ({ kind, wire }) => {
  it('skip what is not local, and refuse the call when nothing local is left', async () => {
    using base = tempDir('bridge-roots-closed-');
    using cache = tempDir('bridge-roots-closed-cache-');
    const r1 = join(base.path, 'r1');
    const r2 = join(base.path, 'r2');
    mkdirSync(r1);
    mkdirSync(r2);
    const log = join(base.path, 'runs.jsonl');
    writeFileSync(log, '');
    const runs = () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { cwd: string }).cwd);

    let listed: string[] | Error = [pathToFileURL(r1).href, SHARE];
    await using client = await connect(
      kind,
      wire,
      {
        script: BRIDGE_BIN,
        args: ['cli', WHERE_CLI, '--root', base.path, '--no-watch', '--no-cache', '--log-level', 'debug'],
        env: { WHERE_CLI_LOG: log, BRIDGE_CACHE_DIR: cache.path },
      },
      {
        capabilities: { roots: { listChanged: true } },
        async answer() {
          if (listed instanceof Error) throw listed;
          return { roots: listed.map((uri) => ({ uri })) };
        },
      },
    );
    // The initialize era keeps the roots for the connection: the client says when they change.
    const relist = async (roots: string[] | Error) => {
      listed = roots;
      if (kind === 'v1') await (client.raw as ClientV1).sendRootsListChanged();
    };
    const mark = (args: Record<string, unknown> = {}) => client.callTool('where_cli_mark', args);

    // The share is skipped; r1 still confines the call.
    const outside = await mark({ cwd: r2 });
    expect(outside.isError).toBe(true);
    expect(String(outside.content[0]?.text)).toContain("outside the client's roots");
    expect((await mark()).isError).toBeFalsy();
    expect(runs()).toEqual([r1]);
    expect(client.stderr()).toContain(`client roots skipped, not local file URLs: "${SHARE}"`);

    await relist([SHARE]);
    const shareOnly = await mark({ cwd: r2 });
    expect(shareOnly.isError).toBe(true);
    expect(String(shareOnly.content[0]?.text)).toContain(
      `names no local directory (it lists only "${SHARE}", which are not local file URLs)`,
    );

    await relist([]);
    const none = await mark({ cwd: r2 });
    expect(none.isError).toBe(true);
    expect(String(none.content[0]?.text)).toContain('names no local directory (it lists none)');

    if (kind === 'v1') {
      // Only the initialize era has a roots/list request that can fail.
      await relist(new Error('the workspace is locked'));
      const failed = await mark({ cwd: r2 });
      expect(failed.isError).toBe(true);
      expect(String(failed.content[0]?.text)).toContain("The client's roots could not be read");
      expect(String(failed.content[0]?.text)).toContain('the workspace is locked');
    }
    expect(runs()).toEqual([r1]);
  });
});

describe('client roots that cannot be used, for an initialize-era task', () => {
  it('end the task with an isError result, read when it was created, and nothing runs', async () => {
    using base = tempDir('bridge-roots-closed-task-');
    using cache = tempDir('bridge-roots-closed-task-cache-');
    const log = join(base.path, 'runs.jsonl');
    writeFileSync(log, '');
    const config = join(base.path, 'bridge.yaml');
    writeFileSync(
      config,
      stringify({
        sources: [
          {
            kind: 'cli',
            options: { program: WHERE_CLI, roots: [base.path] },
            tools: { where_cli_mark: { taskSupport: 'optional' } },
          },
        ],
      }),
    );
    let listed: string[] | Error = [SHARE];
    await using client = await connect(
      'v1',
      'stdio',
      {
        script: BRIDGE_BIN,
        args: ['serve', config, '--no-watch'],
        env: { WHERE_CLI_LOG: log, BRIDGE_CACHE_DIR: cache.path },
      },
      {
        capabilities: { roots: { listChanged: true } },
        async answer() {
          if (listed instanceof Error) throw listed;
          return { roots: listed.map((uri) => ({ uri })) };
        },
      },
    );
    const raw = client.raw as ClientV1;
    const runTask = async () => {
      const created = await raw.request(
        { method: 'tools/call', params: { name: 'where_cli_mark', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      );
      return raw.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    };

    const shareOnly = await runTask();
    expect(shareOnly.isError).toBe(true);
    expect(JSON.stringify(shareOnly.content)).toContain('names no local directory');

    listed = new Error('the workspace is locked');
    await raw.sendRootsListChanged();
    const failed = await runTask();
    expect(failed.isError).toBe(true);
    expect(JSON.stringify(failed.content)).toContain("The client's roots could not be read");
    expect(readFileSync(log, 'utf8')).toBe('');
  });
});
