// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config's literal ${VAR} syntax
// Bad input around the shared store: a store that cannot be reached at start stops the bridge
// with a clear error; one lost while serving fails only the calls that need it, each with a clear
// error, and everything works again once it is back.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir, writeYaml } from '../config/helpers.js';
import { freePort, MISSING_BINARIES, startRedis } from '../helpers/deployment.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, distPath, startHttpBridge } from '../helpers/start-bridge.js';
import { eventually } from '../tasks/helpers.js';

const TASKS = 'io.modelcontextprotocol/tasks';

async function runBridge(args: string[], env: Record<string, string> = {}) {
  try {
    await promisify(execFile)(process.execPath, [BRIDGE_BIN, ...args], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, ...env },
    });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe('a store the bridge cannot use at start', () => {
  it('stops the bridge with an error naming the store when Redis does not answer', async () => {
    const port = await freePort();
    const result = await runBridge([
      'cli',
      'echo',
      '--store',
      `redis://127.0.0.1:${port}/3`,
      '--http',
      '127.0.0.1:0',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach the store redis://127.0.0.1:${port}/3`);
    expect(result.stderr).toMatch(/ECONNREFUSED/);
  });

  it('reads server.store from a config file, the URL from the environment', async () => {
    await using dir = await tempDir();
    const port = await freePort();
    await writeYaml(dir.file('bridge.yaml'), {
      server: { store: '${BRIDGE_STORE_URL}' },
      sources: [{ kind: 'cli', options: { program: 'echo' } }],
    });
    const result = await runBridge(['serve', dir.file('bridge.yaml'), '--no-watch'], {
      BRIDGE_STORE_URL: `redis://127.0.0.1:${port}/1`,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach the store redis://127.0.0.1:${port}/1`);
  });

  it('refuses credentials in the URL, and URLs that are not Redis', async () => {
    const inline = await runBridge(['cli', 'echo', '--store', 'redis://admin:hunter2@127.0.0.1:6379/0']);
    expect(inline.code).toBe(2);
    expect(inline.stderr).toMatch(/no credentials in the store URL.*BRIDGE_STORE_PASSWORD/);
    expect(inline.stderr).not.toContain('hunter2');
    const other = await runBridge(['cli', 'echo', '--store', 'postgres://127.0.0.1/db']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/unsupported scheme "postgres:"; expected redis:\/\/HOST:PORT\/DB/);
  });
});

describe.skipIf(MISSING_BINARIES)('Redis lost while serving', () => {
  it('fails the calls that need it with a clear error, serves the others, and recovers when it returns', async () => {
    await using redis = await startRedis();
    await using bridge = await startHttpBridge({
      script: distPath('test/servers/tasks-server.js'),
      args: ['--store', redis.url],
    });
    const rpc = async (method: string, params: Record<string, unknown>, tasks = true) => {
      const capabilities = tasks ? { extensions: { [TASKS]: {} } } : {};
      return (await modernRequest(bridge.url, method, params, { capabilities })).json ?? {};
    };
    // Without the tasks extension the call runs plainly and pages its output into the store.
    const paged = () => rpc('tools/call', { name: 'count', arguments: { to: 20_000 } }, false);
    const created = await rpc('tools/call', { name: 'sleep_required', arguments: { seconds: 0.1 } });
    const taskId = String(created.result?.taskId);
    expect((await paged()).result?.isError).toBeFalsy();

    await redis.stop();
    const failed = await paged();
    expect(failed.result?.isError).toBe(true);
    expect(JSON.stringify(failed.result?.content)).toMatch(
      /shared store redis:\/\/127\.0\.0\.1:\d+\/0 is unreachable/,
    );
    const poll = await rpc('tasks/get', { taskId });
    expect(poll.error?.message).toMatch(/store .* is unreachable/);
    const task = await rpc('tools/call', { name: 'sleep_required', arguments: { seconds: 0.1 } });
    expect(task.error?.message).toMatch(/store .* is unreachable/);
    // A call that needs no store is still served.
    expect(
      (await rpc('tools/call', { name: 'exit_code', arguments: { code: 0 } })).result?.isError,
    ).toBeFalsy();

    await redis.start();
    const recovered = await eventually(async () => {
      const reply = await paged();
      return reply.result?.isError ? undefined : reply;
    }, 15_000);
    const links = (recovered.result?.content ?? []).filter((block) => block.type === 'resource_link');
    expect(links.length).toBeGreaterThan(0);
    expect(bridge.stderr()).toMatch(/lost the store .*retrying/);
    expect(bridge.child.exitCode).toBeNull();
  });
});
