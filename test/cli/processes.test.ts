import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../adapters/cli/run-command.js';
import { alive, FAKE_CLI, type LoadedCli, loadCli, tempDir, textOf } from './helpers.js';

const cache = tempDir('bridge-cli-cache-');
process.env.BRIDGE_CACHE_DIR = cache.path;

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

function pidsIn(file: string): number[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
}

describe('processes: timeouts, cancellation, progress, output', () => {
  const work = tempDir();
  let cli: LoadedCli;

  beforeAll(async () => {
    cli = await loadCli({ program: FAKE_CLI, timeoutMs: 10_000, probeTimeoutMs: 1_500 }, work.path);
  });
  afterAll(async () => {
    await cli?.[Symbol.asyncDispose]();
    work[Symbol.dispose]();
    cache[Symbol.dispose]();
  });

  it('discovers the fake CLI and skips the command that hangs on --help, with a warning', () => {
    const names = cli.registry.tools.map((tool) => tool.name);
    expect(names).toEqual([
      'fake_cli_binary',
      'fake_cli_color',
      'fake_cli_echo',
      'fake_cli_fail',
      'fake_cli_hang',
      'fake_cli_lines',
    ]);
    expect(cli.log.lines.some((line) => line.includes('skipped "fake-cli.mjs wait"'))).toBe(true);
    const echo = cli.registry.get('fake_cli_echo')?.definition.inputSchema as {
      properties: Record<string, unknown>;
    };
    expect(echo.properties.count).toMatchObject({ type: 'integer' });
    expect(echo.properties.label).toMatchObject({ type: 'string' });
    expect(echo.properties.quiet).toMatchObject({ type: 'boolean' });
    expect(echo.properties.color).toMatchObject({ type: 'string' });
  });

  it('builds the argv exactly: valued options as one element, operands after --', async () => {
    const result = await cli.call('fake_cli_echo', {
      count: 2,
      label: 'a b;c',
      quiet: true,
      color: '',
      args: ['x', '$(y)'],
    });
    expect(JSON.parse(String(result.structuredContent?.stdout))).toEqual([
      '--count=2',
      '--label=a b;c',
      '--color',
      '--quiet',
      '--',
      'x',
      '$(y)',
    ]);
  });

  it('kills a hung command and all its children at the timeout', async () => {
    const pidFile = join(work.path, 'pids-timeout');
    const started = Date.now();
    const result = await cli.call('fake_cli_hang', { args: [pidFile], 'ignore-term': true, timeout: 1_000 });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('timed out after 1000 ms');
    expect(result.structuredContent?.signal).toBe('SIGKILL'); // it ignored SIGTERM
    expect(existsSync(pidFile)).toBe(true);
    const children = pidsIn(pidFile);
    expect(children).toHaveLength(2);
    expect(children).toHaveLength(2);
    expect(await waitFor(() => children.every((pid) => !alive(pid)), 5_000)).toBe(true);
  });

  it('kills the process group when the call is cancelled', async () => {
    const pidFile = join(work.path, 'pids-abort');
    const controller = new AbortController();
    const call = cli.call('fake_cli_hang', { args: [pidFile] }, { signal: controller.signal });
    expect(await waitFor(() => existsSync(pidFile), 5_000)).toBe(true);
    controller.abort();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('cancelled');
    const children = pidsIn(pidFile);
    expect(children).toHaveLength(2);
    expect(await waitFor(() => children.every((pid) => !alive(pid)), 5_000)).toBe(true);
  });

  it('reports increasing progress as lines of output arrive', async () => {
    cli.progress.length = 0;
    const result = await cli.call('fake_cli_lines', { args: ['30'], delay: '40' });
    expect(result.isError).toBeUndefined();
    expect(cli.progress.length).toBeGreaterThan(1);
    const values = cli.progress.map((update) => update.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(cli.progress[0]?.message).toMatch(/lines of output so far/);
  });

  it('strips ANSI colour and OSC links from stdout and stderr', async () => {
    const result = await cli.call('fake_cli_color', {});
    expect(result.structuredContent?.stdout).toBe('red bold green link\n');
    expect(result.structuredContent?.stderr).toBe('warning in yellow\n');
    expect(JSON.stringify(result).includes('\\u001b')).toBe(false);
  });

  it('returns binary stdout as a blob and a non-zero exit as isError', async () => {
    const binary = await cli.call('fake_cli_binary', {});
    const block = binary.content[0];
    expect(block?.type).toBe('resource');
    const blob = block?.type === 'resource' && 'blob' in block.resource ? block.resource.blob : '';
    expect([...Buffer.from(blob, 'base64')]).toEqual([0, 1, 2, 255, 254, 0, 10, 13]);
    const failed = await cli.call('fake_cli_fail', { args: ['7'] });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ exitCode: 7, stderr: 'failing on purpose\n' });
    expect(textOf(failed)).toContain('failed with exit code 7');
  });

  it('leaves nothing behind when the main process exits before its background child', async () => {
    const outcome = await runCommand({
      file: 'sh',
      args: ['-c', 'sleep 30 & echo $!'],
      cwd: work.path,
      env: {},
      timeoutMs: 10_000,
      graceMs: 200,
    });
    expect(outcome.exitCode).toBe(0);
    expect(outcome.durationMs).toBeLessThan(5_000);
    const child = Number(new TextDecoder().decode(outcome.stdout).trim());
    expect(await waitFor(() => !alive(child), 3_000)).toBe(true);
  });

  it('reports a program that cannot start', async () => {
    const outcome = await runCommand({
      file: join(work.path, 'missing'),
      args: [],
      cwd: work.path,
      env: {},
      timeoutMs: 1_000,
    });
    expect(outcome.spawnError).toMatch(/ENOENT|not found|no such file/i);
  });
});
