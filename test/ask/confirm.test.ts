import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeRepo, tempDir } from '../cli/helpers.js';
import { confirming, connect, MATRIX } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

const cache = tempDir('bridge-confirm-cache-');
afterAll(() => cache[Symbol.dispose]());

/** A repository with an untracked file that `git clean --force` would delete. */
function repoWithLitter() {
  const work = tempDir('bridge-confirm-');
  makeRepo(work.path, 2);
  const litter = join(work.path, 'litter.txt');
  writeFileSync(litter, 'untracked\n');
  return { work, litter };
}

const gitBridge = (repo: string, ...flags: string[]) => ({
  script: BRIDGE_BIN,
  args: ['cli', 'git', '--root', repo, ...flags],
  env: { BRIDGE_CACHE_DIR: cache.path },
  cwd: repo,
});

describe.each(MATRIX)('confirmation of destructive calls, $kind client over $wire', ({ kind, wire }) => {
  it('shows the exact command and runs nothing when the user declines', async () => {
    const { work, litter } = repoWithLitter();
    using _ = work;
    const offer = confirming({ action: 'decline' });
    await using client = await connect(kind, wire, gitBridge(work.path, '--confirm', 'destructive'), offer);
    const result = await client.callTool('git_clean', { force: true });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toBe('The user declined the call to git_clean; nothing was run.');
    expect(existsSync(litter)).toBe(true);
    expect(offer.shown).toHaveLength(1);
    const [message] = offer.shown;
    expect(message).toContain('Allow the tool "git_clean" to run?');
    expect(message).toContain('Hints: writes, destructive, idempotent, local');
    expect(message).toMatch(/It will run: \S*git (-c \S+ )*clean --force {2}\(in \//);
    expect(message).toContain('"force": true');
    // Read-only tools run without asking.
    const status = await client.callTool('git_status', {});
    expect(status.isError).toBeFalsy();
    expect(offer.shown).toHaveLength(1);
  });

  it('runs the command once the user confirms', async () => {
    const { work, litter } = repoWithLitter();
    using _ = work;
    const offer = confirming({ action: 'accept', content: { confirm: true } });
    await using client = await connect(kind, wire, gitBridge(work.path, '--confirm', 'destructive'), offer);
    const result = await client.callTool('git_clean', { force: true });
    expect(result.isError).toBeFalsy();
    expect(existsSync(litter)).toBe(false);
  });

  it('refuses, saying why, when the client cannot ask the user', async () => {
    const { work, litter } = repoWithLitter();
    using _ = work;
    await using client = await connect(kind, wire, gitBridge(work.path, '--confirm', 'destructive'));
    const result = await client.callTool('git_clean', { force: true });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain(
      "git_clean was not run: it needs the user's confirmation first",
    );
    expect(result.content[0]?.text).toContain('did not declare the elicitation capability');
    expect(existsSync(litter)).toBe(true);
  });
});

describe('confirmation settings', () => {
  it('runs unconfirmed with --confirm-fallback run', async () => {
    const { work, litter } = repoWithLitter();
    using _ = work;
    const flags = ['--confirm', 'always', '--confirm-fallback', 'run'];
    await using client = await connect('v1', 'stdio', gitBridge(work.path, ...flags));
    const result = await client.callTool('git_clean', { force: true });
    expect(result.isError).toBeFalsy();
    expect(existsSync(litter)).toBe(false);
  });

  it('treats a cancelled confirmation as no', async () => {
    const { work, litter } = repoWithLitter();
    using _ = work;
    const offer = confirming({ action: 'accept', content: { confirm: false } });
    await using client = await connect('v2', 'http', gitBridge(work.path, '--confirm', 'always'), offer);
    const result = await client.callTool('git_clean', { force: true });
    expect(result.content[0]?.text).toBe('The user did not confirm the call to git_clean; nothing was run.');
    expect(existsSync(litter)).toBe(true);
  });
});

describe('confirm and askMissing in a config', () => {
  it('lets a tool override its source, and leaves read-only tools alone', async () => {
    const { decorateSource } = await import('../../src/config/decorate-source.js');
    const { silentLogger } = await import('../../src/index.js');
    const destructive = {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    };
    const readOnly = { ...destructive, readOnlyHint: true, destructiveHint: false };
    const tool = (name: string, annotations: typeof destructive) => ({
      name,
      description: name,
      inputSchema: { type: 'object' },
      annotations,
      invoke: async () => ({ content: [] }),
    });
    const tools = [tool('drop', destructive), tool('wipe', destructive), tool('read', readOnly)];
    const source = decorateSource(
      { label: 'test', load: async () => tools },
      { confirm: 'destructive', askMissing: true, tools: { wipe: { confirm: 'never', askMissing: false } } },
    );
    const loaded = await source.load({ log: silentLogger, signal: new AbortController().signal } as never);
    const byName = new Map(loaded.map((t) => [t.name, t]));
    // Wrapped tools get a new invoke; the others keep the adapter's.
    expect(byName.get('drop')?.invoke).not.toBe(tools[0]?.invoke);
    expect(byName.get('wipe')?.invoke).toBe(tools[1]?.invoke);
    expect(byName.get('read')?.invoke).toBe(tools[2]?.invoke);
    expect([byName.get('drop')?.askMissing, byName.get('wipe')?.askMissing]).toEqual([true, false]);
  });
});

describe('confirmation of an HTTP call (OpenAPI)', () => {
  it('shows the method and URL, and sends nothing upstream when declined', async () => {
    const { startUpstream } = await import('../openapi/helpers/upstream.js');
    const { FIXTURES } = await import('../openapi/helpers/in-process.js');
    const upstream = await startUpstream();
    try {
      const offer = confirming({ action: 'decline' });
      const bridge = {
        script: BRIDGE_BIN,
        args: [
          'openapi',
          join(FIXTURES, 'api-3.0.yaml'),
          '--base-url',
          upstream.url,
          '--confirm',
          'destructive',
        ],
      };
      await using client = await connect('v2', 'http', bridge, offer);
      const result = await client.callTool('deleteItem', { itemId: 'a b' });
      expect(result.content[0]?.text).toBe('The user declined the call to deleteItem; nothing was run.');
      expect(offer.shown[0]).toContain(`It will run: DELETE ${upstream.url}/items/a%20b`);
      expect(upstream.requests.filter((seen) => seen.method === 'DELETE')).toEqual([]);
      // Reads run unasked.
      const read = await client.callTool('getItem', { itemId: 'x' });
      expect(read.isError).toBeFalsy();
      expect(offer.shown).toHaveLength(1);
    } finally {
      await upstream.close();
    }
  });
});
