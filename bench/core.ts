// Core benchmark: tools/call throughput over Streamable HTTP at 16 calls in flight, through the
// bridge to a local upstream, beside the same upstream called directly in the same run. Client:
// an undici Pool of 16 connections posting hand-written JSON-RPC (no MCP client library). The peer
// (@ivotoby/openapi-mcp-server) is not measured here: it answers POSTs with 202 and puts results on
// the GET stream, so it cannot do the same work. The bridge's own CPU time and heap allocation per
// call are read from its process (see _server-meter.ts): steadier than throughput on a busy machine.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { type Measurement, percentile, report } from './_report.js';
import type { ServerCost } from './_server-meter.js';

const CONCURRENCY = 16;
const WARMUP = 500;
const CALLS = 6_000;

const upstream = createServer((req, res) => {
  const id = Number(req.url?.split('/').pop());
  const body = JSON.stringify({ id, name: `item ${id}`, tags: ['a', 'b'], price: id * 1.5 });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

const child = spawn(
  process.execPath,
  [
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : []),
    fileURLToPath(new URL('_core-server.js', import.meta.url)),
  ],
  {
    env: { ...process.env, BENCH_UPSTREAM: upstreamUrl },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  },
);
const bridgeUrl = await listeningUrl(child);

/**
 * Runs `call` CALLS times, CONCURRENCY at once; returns calls/s, per-call latencies in ms and, when
 * `server` is set, the bridge process's CPU time and heap allocation per call.
 */
async function load(call: (i: number) => Promise<void>, server?: ChildProcess) {
  for (let i = 0; i < WARMUP; i++) await call(i);
  const latencies: number[] = [];
  let next = 0;
  server?.send('start');
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CALLS) {
        const i = next++;
        const t0 = performance.now();
        await call(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cost = server ? await serverCost(server) : undefined;
  return {
    perSecond: CALLS / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuMicrosPerCall: (cost?.cpuMicros ?? Number.NaN) / CALLS,
    allocatedKiBPerCall: (cost?.allocatedBytes ?? Number.NaN) / CALLS / 1024,
  };
}

function serverCost(server: ChildProcess): Promise<ServerCost> {
  return new Promise((resolve) => {
    server.once('message', (message) => resolve(message as ServerCost));
    server.send('stop');
  });
}

const direct = new Pool(upstreamUrl, { connections: CONCURRENCY });
const floor = await load(async (i) => {
  const response = await direct.request({ path: `/items/${i}`, method: 'GET' });
  await response.body.json();
});

const bridge = new Pool(new URL(bridgeUrl).origin, { connections: CONCURRENCY });
const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};
const modern = await load(async (i) => {
  const response = await bridge.request({
    path: '/mcp',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'get_item',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'get_item', arguments: { id: i }, _meta: envelope },
    }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200 || !text.includes(`"id":${i},`)) throw new Error(`bad answer: ${text}`);
}, child);

// The initialize era: one session, calls answered on SSE streams.
const init = await bridge.request({
  path: '/mcp',
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  }),
});
await init.body.text();
const session = String(init.headers['mcp-session-id']);
const legacyHeaders = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-session-id': session,
  'mcp-protocol-version': '2025-11-25',
};
await (
  await bridge.request({
    path: '/mcp',
    method: 'POST',
    headers: legacyHeaders,
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  })
).body.text();
const legacy = await load(async (i) => {
  const response = await bridge.request({
    path: '/mcp',
    method: 'POST',
    headers: legacyHeaders,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'get_item', arguments: { id: i } },
    }),
  });
  const text = await response.body.text();
  if (!text.includes(`\\"id\\":${i},`)) throw new Error(`bad answer: ${text}`);
}, child);

const measurements: Measurement[] = [
  { name: 'upstream called directly (floor)', value: Math.round(floor.perSecond), unit: 'calls/s' },
  {
    name: 'tools/call, 2026-07-28 HTTP (stateless), 16 in flight',
    value: Math.round(modern.perSecond),
    unit: 'calls/s',
    min: 3000,
  },
  { name: '  p50 / p99', value: modern.p50, unit: `ms / ${modern.p99.toFixed(2)} ms` },
  { name: '  bridge CPU per call', value: modern.cpuMicrosPerCall, unit: 'µs' },
  { name: '  bridge heap allocated per call', value: modern.allocatedKiBPerCall, unit: 'KiB' },
  {
    name: 'tools/call, 2025-11-25 session, 16 in flight',
    value: Math.round(legacy.perSecond),
    unit: 'calls/s',
    min: 3000,
  },
  { name: '  p50 / p99', value: legacy.p50, unit: `ms / ${legacy.p99.toFixed(2)} ms` },
  { name: '  bridge CPU per call', value: legacy.cpuMicrosPerCall, unit: 'µs' },
  { name: '  bridge heap allocated per call', value: legacy.allocatedKiBPerCall, unit: 'KiB' },
  { name: 'bridge share of upstream throughput', value: modern.perSecond / floor.perSecond, unit: '' },
];
const ok = report(measurements);

await Promise.all([direct.close(), bridge.close()]);
child.kill('SIGTERM');
upstream.close();
process.exitCode = ok ? 0 : 1;

function listeningUrl(process: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    process.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening (\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    process.once('exit', (code) => reject(new Error(`bench server exited with ${code}: ${stderr}`)));
  });
}
