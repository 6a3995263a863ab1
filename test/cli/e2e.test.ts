import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, MATRIX, type TestClient } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { alive, FAKE_CLI, git, makeRepo, tempDir } from './helpers.js';

const work = tempDir();
const cache = tempDir('bridge-cli-cache-');
const repo = makeRepo(work.path, 1500);
const env = { BRIDGE_CACHE_DIR: cache.path };
afterAll(() => {
  work[Symbol.dispose]();
  cache[Symbol.dispose]();
});

describe.each(MATRIX)('bridge cli git with the $kind client over $wire', ({ kind, wire }) => {
  let client: TestClient;
  beforeAll(async () => {
    client = await connect(kind, wire, {
      script: BRIDGE_BIN,
      args: ['cli', 'git', '--root', repo],
      env,
      cwd: repo,
    });
  });
  afterAll(async () => {
    await client?.[Symbol.asyncDispose]();
  });

  it('lists typed, annotated tools that map back to their subcommands', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(
      byName.get('git_cherry_pick')?.title ??
        (byName.get('git_cherry_pick')?.annotations as { title?: string })?.title,
    ).toBe('git cherry-pick');
    expect(byName.get('git_status')?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(byName.get('git_reset')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.get('git_fetch')?.annotations).toMatchObject({ openWorldHint: true });
    expect(byName.get('git_log')?.outputSchema).toMatchObject({ type: 'object' });
    const log = byName.get('git_log')?.inputSchema as { properties: Record<string, { type: string }> };
    expect(log.properties['max-count']?.type).toBe('integer');
    expect(log.properties.revisions?.type).toBe('array');
  });

  it('runs a command and pages a long log that resources/read rebuilds exactly', async () => {
    const status = await client.callTool('git_status', { short: true });
    expect(status.isError).toBeFalsy();
    expect(status.structuredContent).toMatchObject({ exitCode: 0, signal: null });

    const expected = git(repo, 'log', '--format=%H %an %s');
    const result = await client.callTool('git_log', { format: '%H %an %s' });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { truncated: boolean }).truncated).toBe(true);
    const links = result.content.filter((block) => block.type === 'resource_link');
    const note = String(result.content.find((block) => String(block.text ?? '').includes('continues'))?.text);
    const pages = Number(/page 1 of (\d+)/.exec(note)?.[1]);
    const uri = /resources\/read on (\S+)\/page\/N/.exec(note)?.[1];
    expect(links.length).toBeGreaterThan(0);
    let text = String(result.content[0]?.text);
    for (let page = 2; page <= pages; page++) {
      const read = await client.readResource(`${uri}/page/${page}`);
      text += String(read.contents[0]?.text);
    }
    expect(text).toBe(expected);
  });

  it('refuses a path outside the roots and an injected option, saying why', async () => {
    const outside = await client.callTool('git_status', { cwd: '/' });
    expect(outside.isError).toBe(true);
    expect(String(outside.content[0]?.text)).toContain('outside the allowed roots');
    const injected = await client.callTool('git_log', { revisions: ['--output=/tmp/bridge-pwned'] });
    expect(injected.isError).toBe(true);
    expect(String(injected.content[0]?.text)).toContain('starts with "-"');
    expect(existsSync('/tmp/bridge-pwned')).toBe(false);
  });
});

describe('bridge cli process behaviour', () => {
  it('exits non-zero with a clear message for an unknown program', () => {
    const result = spawnSync(process.execPath, [BRIDGE_BIN, 'cli', 'no-such-program-here'], {
      encoding: 'utf8',
      input: '',
      env: { ...process.env, ...env },
      timeout: 20_000,
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('"no-such-program-here" was not found on PATH');
  });

  it('exits non-zero naming the flag when --allow names no subcommand', () => {
    const result = spawnSync(process.execPath, [BRIDGE_BIN, 'cli', 'git', '--allow', 'no-such-command'], {
      encoding: 'utf8',
      input: '',
      cwd: repo,
      env: { ...process.env, ...env },
      timeout: 20_000,
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('--allow no-such-command: git has no such subcommand');
  });

  it('reports progress and kills a cancelled command with its children, and keeps serving', async () => {
    const pidFile = join(work.path, 'e2e-cancel-pids');
    await using client = await connect('v1', 'stdio', {
      script: BRIDGE_BIN,
      args: ['cli', FAKE_CLI, '--probe-timeout', '1500'],
      env,
      cwd: work.path,
    });
    const seen: number[] = [];
    const lines = await client.callTool(
      'fake_cli_lines',
      { args: ['20'], delay: '50' },
      { onprogress: (update) => seen.push((update as { progress: number }).progress) },
    );
    expect(lines.structuredContent).toMatchObject({ exitCode: 0 });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));

    const controller = new AbortController();
    const call = client.callTool('fake_cli_hang', { args: [pidFile] }, { signal: controller.signal });
    const deadline = Date.now() + 10_000;
    while (!existsSync(pidFile) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expect(call).rejects.toThrow();
    const children = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
    expect(children).toHaveLength(2);
    const end = Date.now() + 6_000;
    while (children.some(alive) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(children.filter(alive)).toEqual([]);
    const after = await client.callTool('fake_cli_echo', { args: ['still', 'here'] });
    expect(JSON.parse(String((after.structuredContent as { stdout: string }).stdout))).toEqual([
      '--',
      'still',
      'here',
    ]);
  });

  it('kills running commands and their children when the server exits', async () => {
    const pidFile = join(work.path, 'e2e-pids');
    {
      await using client = await connect('v1', 'stdio', {
        script: BRIDGE_BIN,
        args: ['cli', FAKE_CLI, '--probe-timeout', '1500'],
        env,
        cwd: work.path,
      });
      const call = client.callTool('fake_cli_hang', { args: [pidFile] }).catch(() => undefined);
      const deadline = Date.now() + 10_000;
      while (!existsSync(pidFile) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(existsSync(pidFile)).toBe(true);
      void call;
    }
    const children = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
    expect(children).toHaveLength(2);
    expect(children).toHaveLength(2);
    const deadline = Date.now() + 6_000;
    while (children.some(alive) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(children.filter(alive)).toEqual([]);
  });
});
