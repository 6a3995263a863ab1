// CLI adapter: per-call overhead of a tool call versus the same command run directly with execa,
// in process and through the real `bridge cli git` over stdio; start-up to tools/list, cold and
// from the discovery cache.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execa } from 'execa';
import { createCliSource } from '../adapters/cli/index.js';
import { MemoryResourceStore, silentLogger, type ToolContext } from '../src/index.js';
import { type Measurement, percentile, report } from './_report.js';

const BRIDGE = fileURLToPath(new URL('../bin/bridge.js', import.meta.url));
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'bridge-bench-cli-')));
const repo = join(dir, 'repo');
const cacheDir = join(dir, 'cache');
execFileSync('git', ['init', '-q', '-b', 'main', repo]);
for (let i = 0; i < 20; i++) {
  execFileSync(
    'git',
    ['-c', 'user.name=B', '-c', 'user.email=b@x', 'commit', '-q', '--allow-empty', '-m', `c${i}`],
    {
      cwd: repo,
    },
  );
}
process.env.BRIDGE_CACHE_DIR = cacheDir;

const measurements: Measurement[] = [];
try {
  await inProcess();
  await overStdio();
  await startUp();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = report(measurements) ? 0 : 1;

async function inProcess(): Promise<void> {
  const source = createCliSource({ program: 'git', allow: ['rev-parse'] }, repo);
  const [tool] = await source.load({ log: silentLogger, signal: new AbortController().signal });
  if (!tool) throw new Error('no git_rev_parse tool');
  const context: ToolContext = {
    signal: new AbortController().signal,
    progress() {},
    log: silentLogger,
    resources: new MemoryResourceStore(),
    caller: 'bench',
  };
  const direct: number[] = [];
  const bridged: number[] = [];
  for (let i = 0; i < 20; i++) await execa('git', ['rev-parse', 'HEAD'], { cwd: repo }); // warm-up
  // Interleaved, so that machine noise hits both series alike.
  for (let i = 0; i < 200; i++) {
    let start = performance.now();
    await execa('git', ['rev-parse', 'HEAD'], { cwd: repo });
    direct.push(performance.now() - start);
    start = performance.now();
    const result = await tool.invoke({ args: ['HEAD'] }, context);
    bridged.push(performance.now() - start);
    if (result.isError) throw new Error(JSON.stringify(result));
  }
  await source.close?.();
  const floor = percentile(direct, 50);
  measurements.push({ name: 'execa directly, git rev-parse HEAD, p50', value: floor, unit: 'ms' });
  measurements.push({ name: 'tool invoke (in process), p50', value: percentile(bridged, 50), unit: 'ms' });
  measurements.push({
    name: 'per-call overhead in process, p50',
    value: Math.max(0, percentile(bridged, 50) - floor),
    unit: 'ms',
    max: 5,
  });
}

async function overStdio(): Promise<void> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BRIDGE, 'cli', 'git', '--allow', 'rev-parse'],
      cwd: repo,
      env: { ...(process.env as Record<string, string>) },
      stderr: 'ignore',
    }),
  );
  const direct: number[] = [];
  const calls: number[] = [];
  for (let i = 0; i < 10; i++)
    await client.callTool({ name: 'git_rev_parse', arguments: { args: ['HEAD'] } });
  for (let i = 0; i < 100; i++) {
    let start = performance.now();
    await execa('git', ['rev-parse', 'HEAD'], { cwd: repo });
    direct.push(performance.now() - start);
    start = performance.now();
    await client.callTool({ name: 'git_rev_parse', arguments: { args: ['HEAD'] } });
    calls.push(performance.now() - start);
  }
  await client.close();
  measurements.push({
    name: 'per-call overhead through MCP stdio (client included), p50',
    value: Math.max(0, percentile(calls, 50) - percentile(direct, 50)),
    unit: 'ms',
  });
}

/** Milliseconds from spawning `bridge cli git` to the tools/list response. */
async function timeToToolsList(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [BRIDGE, 'cli', 'git', ...args], {
    cwd: repo,
    stdio: ['pipe', 'pipe', 'ignore'],
    env: process.env,
  });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  return await new Promise<number>((resolve, reject) => {
    let buffer = '';
    child.once('exit', (code) => reject(new Error(`bridge exited with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const message = JSON.parse(line) as { id?: number };
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (message.id === 2) {
          const elapsed = performance.now() - started;
          child.removeAllListeners('exit');
          child.once('exit', () => resolve(elapsed));
          child.stdin.end();
        }
      }
    });
  });
}

async function startUp(): Promise<void> {
  const cold: number[] = [];
  const cached: number[] = [];
  for (let i = 0; i < 3; i++) {
    rmSync(cacheDir, { recursive: true, force: true });
    cold.push(await timeToToolsList([]));
    cached.push(await timeToToolsList([]));
  }
  const coldMedian = percentile(cold, 50);
  measurements.push({ name: 'start-up to tools/list, cold (discovery)', value: coldMedian, unit: 'ms' });
  measurements.push({
    name: 'start-up to tools/list, cached',
    value: percentile(cached, 50),
    unit: 'ms',
    floor: coldMedian,
    maxRatio: 0.75,
  });
  // A valid cache runs no process at all (not even `git --version`): only Node and the bridge start.
  measurements.push({
    name: 'start-up to tools/list, cached, absolute',
    value: percentile(cached, 50),
    unit: 'ms',
    max: 300,
  });
}
