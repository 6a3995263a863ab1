// A subcommand the policy does not offer is not listed; calling it anyway gets an isError result
// that says why and what is offered, on every client and transport.
import { afterAll, describe, expect, it } from 'vitest';
import { connect, MATRIX } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { makeRepo, tempDir } from './helpers.js';

const work = tempDir();
const cache = tempDir('bridge-cli-cache-');
makeRepo(work.path, 2);
afterAll(() => {
  work[Symbol.dispose]();
  cache[Symbol.dispose]();
});

const command = {
  script: BRIDGE_BIN,
  args: ['cli', 'git', '--allow', 'status,log', '--deny', 'push', '--root', work.path, '--no-watch'],
  env: { BRIDGE_CACHE_DIR: cache.path },
  cwd: work.path,
};

describe.each(MATRIX)('a refused subcommand with the $kind client over $wire', ({ kind, wire }) => {
  it('is not listed, and calling it says why and what is offered', async () => {
    await using client = await connect(kind, wire, command);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(['git_log', 'git_status']);
    const refused = await client.callTool('git_push', {});
    expect(refused.isError).toBe(true);
    const text = String(refused.content[0]?.text);
    expect(text).toContain('"git_push" is not offered');
    expect(text).toContain('--allow status,log and --deny push');
    expect(text).toContain('Offered tools: git_log, git_status');
    // A name no source knows is still a protocol error.
    await expect(client.callTool('no_such_tool', {})).rejects.toMatchObject({ code: -32602 });
  });
});
