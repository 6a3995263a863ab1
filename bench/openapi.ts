// OpenAPI adapter benchmark on GitHub's REST spec (@octokit/openapi, 13 MB, 1,200+ operations),
// beside the best no-code peer (@ivotoby/openapi-mcp-server, pinned) and the floors, in one run:
// start-up to the complete tools/list against a fresh process that only reads and parses the spec
// (cold, and repeated from the conversion cache), peak memory against the same floor, the size of
// tools/list, and the overhead of a tools/call over stdio against the same GET sent with undici
// (and, for scale, through a bare JSON-lines loop: the floor of any stdio server, _bare-stdio.ts).
// Clients: every MCP figure is taken with a hand-written JSON-lines stdio client (_stdio-client.ts);
// the call floor with an undici Pool of one connection.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { type Measurement, percentile, report } from './_report.js';
import { StdioClient, toolsOf } from './_stdio-client.js';

const require = createRequire(import.meta.url);
const GITHUB_SPEC = require.resolve('@octokit/openapi/generated/api.github.com.json');
const BRIDGE = fileURLToPath(new URL('../bin/bridge.js', import.meta.url));
const PEER = require.resolve('@ivotoby/openapi-mcp-server/bin/mcp-server.js');
const BARE = fileURLToPath(new URL('_bare-stdio.js', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CALLS = 2_000;
const work = mkdtempSync(join(tmpdir(), 'bridge-bench-'));
const cacheEnv = { ...process.env, BRIDGE_CACHE_DIR: join(work, 'cache') };

interface Start {
  ms: number;
  rssMiB: number;
  listBytes: number;
  tools: number;
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

/** Spawn → initialize → every page of tools/list, with the peak RSS at that point. */
async function startRun(script: string, args: string[]): Promise<Start> {
  const started = performance.now();
  const client = new StdioClient(script, args, cacheEnv);
  await client.initialize();
  const pages = await client.listToolPages();
  const ms = performance.now() - started;
  const rssMiB = client.peakRssMiB();
  await client.close();
  const tools = toolsOf(pages);
  return { ms, rssMiB, listBytes: Buffer.byteLength(JSON.stringify({ tools })), tools: tools.length };
}

const bridgeArgs = (...extra: string[]) => [
  'openapi',
  GITHUB_SPEC,
  '--base-url',
  'http://127.0.0.1:9',
  ...extra,
];
const peerArgs = [
  '--openapi-spec',
  GITHUB_SPEC,
  '--api-base-url',
  'http://127.0.0.1:9',
  '--verbose',
  'false',
];

const floors: Array<{ ms: number; rssMiB: number }> = [];
const cold: Start[] = [];
const repeat: Start[] = [];
const autoCold: Start[] = [];
const autoRepeat: Start[] = [];
const peer: Start[] = [];
await startRun(BRIDGE, bridgeArgs('--tools', 'all')); // fills the conversion cache
for (let i = 0; i < RUNS; i++) {
  floors.push(await floorRun());
  cold.push(await startRun(BRIDGE, bridgeArgs('--tools', 'all', '--no-cache')));
  peer.push(await startRun(PEER, peerArgs));
  repeat.push(await startRun(BRIDGE, bridgeArgs('--tools', 'all')));
  autoCold.push(await startRun(BRIDGE, bridgeArgs('--no-cache')));
  autoRepeat.push(await startRun(BRIDGE, bridgeArgs()));
}

// tools/list over HTTP for 2026-07-28 clients, from the conversion cache: through the SDK's
// per-request server (an envelope the bridge has not seen) and through the direct lane (an
// envelope a first list made known, so the page is joined from the cached entries' JSON).
// Client: fetch (undici), every page, the answer parsed.
async function modernLists(): Promise<{ sdk: number[]; lane: number[] }> {
  const child = spawn(process.execPath, [BRIDGE, ...bridgeArgs('--tools', 'all', '--http', '127.0.0.1:0')], {
    env: cacheEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', () => reject(new Error(`the bridge exited:\n${stderr}`)));
  });
  const allPages = async (client: string) => {
    const started = performance.now();
    let cursor: string | undefined;
    do {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: {
            ...(cursor ? { cursor } : {}),
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
              'io.modelcontextprotocol/clientInfo': { name: client, version: '1' },
            },
          },
        }),
      });
      const answer = (await response.json()) as { result: { nextCursor?: string } };
      cursor = answer.result.nextCursor;
    } while (cursor !== undefined);
    return performance.now() - started;
  };
  const sdk: number[] = [];
  const lane: number[] = [];
  await allPages('known');
  for (let i = 0; i < RUNS * 2; i++) {
    sdk.push(await allPages(`fresh-${i}`));
    lane.push(await allPages('known'));
  }
  child.kill();
  return { sdk, lane };
}
const lists = await modernLists();

// tools/call overhead: one upstream, called directly with undici and through each server. It runs
// in a process of its own, as a real API does: in this process, the direct GET was answered by
// this event loop without a switch between processes, which every server's path pays four times.
const upstream = spawn(process.execPath, [fileURLToPath(new URL('_items-upstream.js', import.meta.url))], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const port = await new Promise<string>((resolve, reject) => {
  upstream.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
  upstream.once('exit', (code) => reject(new Error(`the upstream exited (${code}) before listening`)));
});
const origin = `http://127.0.0.1:${port}`;
const itemSpec = join(work, 'items.json');
writeFileSync(
  itemSpec,
  JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'items', version: '1' },
    paths: {
      '/items/{itemId}': {
        get: {
          operationId: 'getItem',
          parameters: [{ name: 'itemId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'the item',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
          },
        },
      },
    },
  }),
);
const pool = new Pool(origin, { connections: 1 });
async function directLatencies(): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    const response = await pool.request({
      path: `/v1/items/${i}`,
      method: 'GET',
      headers: { accept: 'application/json' },
    });
    JSON.parse(await response.body.text());
    latencies.push(performance.now() - started);
  }
  return latencies;
}
// The floor is taken warm, as every server's figure is (each warms up on its own first calls, and
// the servers run while this process is warm): the first pass after the start-up runs had a p50
// 2-2.7x the next ones' (0.14 vs 0.05-0.06 ms), which understated every overhead by ~0.09 ms.
await directLatencies();
const direct = await directLatencies();
await pool.close();

async function callLatencies(script: string, args: string[]): Promise<number[]> {
  const client = new StdioClient(script, args, cacheEnv);
  await client.initialize();
  const [tool] = await client.listTools();
  const latencies: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    const answer = await client.request('tools/call', { name: tool?.name, arguments: { itemId: String(i) } });
    const elapsed = performance.now() - started;
    // Checked outside the timing: the peer pretty-prints the body, the bridge does not.
    const result = JSON.parse(answer) as { result?: { content?: Array<{ text?: string }> } };
    const body = JSON.parse(result.result?.content?.[0]?.text ?? '{}') as { id?: string };
    if (body.id !== String(i)) throw new Error(`bad answer: ${answer}`);
    latencies.push(elapsed);
  }
  await client.close();
  return latencies;
}
const bridged = await callLatencies(BRIDGE, ['openapi', itemSpec, '--base-url', `${origin}/v1`]);
const peered = await callLatencies(PEER, [
  '--openapi-spec',
  itemSpec,
  '--api-base-url',
  `${origin}/v1`,
  '--verbose',
  'false',
]);
const bare = await callLatencies(BARE, [`${origin}/v1`]);
upstream.stdin?.end();
rmSync(work, { recursive: true, force: true });

const median = (values: number[]) => percentile(values, 50);
const p50 = (samples: number[]) => percentile(samples.slice(200), 50);
const floorMs = median(floors.map((f) => f.ms));
const floorRss = median(floors.map((f) => f.rssMiB));
const first = (runs: Start[]) => runs[0] as Start;
const ms = (runs: Start[]) => median(runs.map((r) => r.ms));
const directP50 = p50(direct);
const n = `median of ${RUNS}`;

const measurements: Measurement[] = [
  { name: `GitHub spec: read + JSON.parse in a fresh process (floor, ${n})`, value: floorMs, unit: 'ms' },
  {
    name: `start-up to the full tools/list, --tools all, cold (--no-cache), ${first(cold).tools} tools (peer: ${first(peer).tools}), ${n}`,
    value: ms(cold),
    unit: 'ms',
    peer: ms(peer),
    floor: floorMs,
    maxRatio: 2,
  },
  {
    name: `same, repeat start from the conversion cache, ${n}`,
    value: ms(repeat),
    unit: 'ms',
    floor: floorMs,
    maxRatio: 1,
  },
  {
    name: `default --tools auto (dynamic here), cold, ${n}`,
    value: ms(autoCold),
    unit: 'ms',
    floor: floorMs,
    maxRatio: 1.5,
  },
  {
    name: `default --tools auto, repeat start, ${n}`,
    value: ms(autoRepeat),
    unit: 'ms',
    floor: floorMs,
    maxRatio: 1.5,
  },
  { name: 'peak RSS, read + parse (floor)', value: floorRss, unit: 'MiB' },
  {
    name: 'peak RSS after the full tools/list, --tools all, cold',
    value: median(cold.map((r) => r.rssMiB)),
    unit: 'MiB',
    peer: median(peer.map((r) => r.rssMiB)),
    floor: floorRss,
    maxRatio: 1.6,
  },
  {
    name: 'tools/list, all tools (peer: no outputSchema, no annotations)',
    value: first(cold).listBytes,
    unit: 'bytes',
    peer: first(peer).listBytes,
    max: 1_600_000,
  },
  {
    name: `tools/list, dynamic (${first(autoCold).tools} meta-tools)`,
    value: first(autoCold).listBytes,
    unit: 'bytes',
    max: 16_000,
  },
  {
    name: `tools/list over HTTP, 2026-07-28, every page from the cache, through the SDK's per-request server (median of ${lists.sdk.length})`,
    value: median(lists.sdk),
    unit: 'ms',
  },
  {
    name: 'same, through the direct lane (the page joined from the cached entries)',
    value: median(lists.lane),
    unit: 'ms',
  },
  { name: 'GET to the upstream with undici directly, p50 (floor)', value: directP50, unit: 'ms' },
  {
    name: 'the same GET through a bare JSON-lines loop over stdio (no MCP library, no checks), p50',
    value: p50(bare),
    unit: 'ms',
  },
  {
    name: 'tools/call of the same GET over stdio, p50',
    value: p50(bridged),
    unit: 'ms',
    peer: p50(peered),
  },
  {
    name: 'tools/call overhead over the direct GET, p50',
    value: p50(bridged) - directP50,
    unit: 'ms',
    peer: p50(peered) - directP50,
    max: 0.2,
  },
];
process.exitCode = report(measurements) ? 0 : 1;
