// OpenAPI adapter benchmark on GitHub's REST spec (@octokit/openapi, 13 MB, 1,200+ operations):
// start-up to the first tools/list against a fresh process that only reads and parses the spec,
// peak memory against the same floor, the size of tools/list (all tools vs dynamic), and the
// overhead of a tools/call over stdio against calling the same local upstream directly.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { type Measurement, percentile, report } from './_report.js';

const require = createRequire(import.meta.url);
const GITHUB_SPEC = require.resolve('@octokit/openapi/generated/api.github.com.json');
const BRIDGE = fileURLToPath(new URL('../bin/bridge.js', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../../fixtures/openapi/api-3.0.yaml', import.meta.url));
const RUNS = 5;
const CALLS = 2_000;

/** A bridge over stdio spoken to in raw JSON-RPC lines, so no client library cost is measured. */
class StdioPeer {
  readonly child: ChildProcess;
  readonly #pending = new Map<number, (message: string) => void>();
  #buffer = '';
  #id = 0;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [BRIDGE, ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (let newline = this.#buffer.indexOf('\n'); newline >= 0; newline = this.#buffer.indexOf('\n')) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        const id = /^\{"result":.*"id":(\d+)\}$|"id":(\d+)/.exec(line);
        const key = Number(id?.[1] ?? id?.[2]);
        this.#pending.get(key)?.(line);
        this.#pending.delete(key);
      }
    });
  }

  request(method: string, params: unknown): Promise<string> {
    const id = ++this.#id;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  async initialize(): Promise<void> {
    await this.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'bench', version: '1' },
    });
    this.child.stdin?.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  /** Peak resident memory (VmHWM) in MiB, read before the process ends. */
  peakRssMiB(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
  }

  async close(): Promise<void> {
    this.child.stdin?.end();
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

// The floor: a fresh Node process that reads and parses the spec, nothing else.
function floorRun(): Promise<{ ms: number; rssMiB: number }> {
  const script = `const t=JSON.parse(require('fs').readFileSync(${JSON.stringify(GITHUB_SPEC)},'utf8'));process.stdout.write(String(process.resourceUsage().maxRSS/1024))`;
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve) =>
    child.once('exit', () => resolve({ ms: performance.now() - started, rssMiB: Number(out) })),
  );
}

async function bridgeRun(
  mode: string,
): Promise<{ ms: number; rssMiB: number; listBytes: number; tools: number }> {
  const started = performance.now();
  const peer = new StdioPeer(['openapi', GITHUB_SPEC, '--tools', mode, '--base-url', 'http://127.0.0.1:9']);
  await peer.initialize();
  // Every page of tools/list: the whole list is what a client has to wait for.
  const tools: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = JSON.parse(await peer.request('tools/list', cursor ? { cursor } : {})) as {
      result: { tools: unknown[]; nextCursor?: string };
    };
    tools.push(...page.result.tools);
    cursor = page.result.nextCursor;
  } while (cursor);
  const ms = performance.now() - started;
  const rssMiB = peer.peakRssMiB();
  await peer.close();
  return { ms, rssMiB, listBytes: Buffer.byteLength(JSON.stringify({ tools })), tools: tools.length };
}

const median = (values: number[]) => percentile(values, 50);

const floors: Array<{ ms: number; rssMiB: number }> = [];
const runs: Array<Awaited<ReturnType<typeof bridgeRun>>> = [];
for (let i = 0; i < RUNS; i++) {
  floors.push(await floorRun());
  runs.push(await bridgeRun('all'));
}
const dynamic = await bridgeRun('dynamic');

// tools/call overhead: one local upstream, called directly with undici and through the bridge.
const upstream = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = JSON.stringify({ method: req.method, url: req.url, headers: {}, body: '' });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
upstream.keepAliveTimeout = 30_000;
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
const pool = new Pool(origin, { connections: 1 });
const direct: number[] = [];
for (let i = 0; i < CALLS; i++) {
  const started = performance.now();
  const response = await pool.request({
    path: `/v1/items/${i}`,
    method: 'GET',
    headers: { accept: 'application/json' },
  });
  JSON.parse(await response.body.text());
  direct.push(performance.now() - started);
}
const peer = new StdioPeer(['openapi', FIXTURE, '--tools', 'all', '--base-url', `${origin}/v1`]);
await peer.initialize();
const bridged: number[] = [];
for (let i = 0; i < CALLS; i++) {
  const started = performance.now();
  const answer = await peer.request('tools/call', { name: 'getItem', arguments: { itemId: String(i) } });
  if (!answer.includes(`/v1/items/${i}`)) throw new Error(`bad answer: ${answer}`);
  bridged.push(performance.now() - started);
}
await peer.close();
await pool.close();
upstream.close();

const floorMs = median(floors.map((f) => f.ms));
const floorRss = median(floors.map((f) => f.rssMiB));
const all = {
  ms: median(runs.map((r) => r.ms)),
  rss: median(runs.map((r) => r.rssMiB)),
  bytes: runs[0]?.listBytes ?? 0,
  tools: runs[0]?.tools ?? 0,
};
const directP50 = percentile(direct.slice(200), 50);
const bridgedP50 = percentile(bridged.slice(200), 50);

const measurements: Measurement[] = [
  {
    name: `GitHub spec: read + JSON.parse in a fresh process (floor, median of ${RUNS})`,
    value: floorMs,
    unit: 'ms',
  },
  {
    name: `start-up to first tools/list, ${all.tools} tools (median of ${RUNS})`,
    value: all.ms,
    unit: 'ms',
    floor: floorMs,
    maxRatio: 2,
  },
  { name: 'start-up to first tools/list, dynamic mode (one run)', value: dynamic.ms, unit: 'ms' },
  { name: 'peak RSS, read + parse (floor)', value: floorRss, unit: 'MiB' },
  { name: 'peak RSS, bridge after tools/list', value: all.rss, unit: 'MiB', floor: floorRss, maxRatio: 2 },
  { name: 'tools/list, all tools', value: all.bytes, unit: `bytes (~${Math.round(all.bytes / 4)} tokens)` },
  {
    name: `tools/list, dynamic (${dynamic.tools} meta-tools)`,
    value: dynamic.listBytes,
    unit: `bytes (~${Math.round(dynamic.listBytes / 4)} tokens)`,
    max: 16_000,
  },
  { name: 'direct undici call to the upstream, p50 (floor)', value: directP50, unit: 'ms' },
  { name: 'tools/call over stdio, p50', value: bridgedP50, unit: 'ms' },
  { name: 'tools/call overhead over direct, p50', value: bridgedP50 - directP50, unit: 'ms', max: 0.3 },
];
process.exitCode = report(measurements) ? 0 : 1;
