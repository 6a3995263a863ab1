// Pre-authentication flood: a bridge protected by a bearer token (a real child process, so its RSS
// is its own) receives 100 unauthenticated connections at once, each declaring a 4 MiB body and
// sending 4 MiB − 1 KiB of it, never the end. Measures the server's RSS growth (target < 32 MiB)
// and how long a slow body holds its connection (the body deadline, default 10 s, here 2 s), then
// checks that the server still answers an authenticated request.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type Measurement, report } from './_report.js';

const CONNECTIONS = 100;
const MiB = 1024 * 1024;
const BODY_TIMEOUT_MS = 2_000;
const TOKEN = 'bench-token-0123456789abcdef';
const bin = fileURLToPath(new URL('../bin/bridge.js', import.meta.url));

function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

async function start(): Promise<{ child: ChildProcess; url: URL }> {
  const child = spawn(
    process.execPath,
    [
      bin,
      'cli',
      'echo',
      '--auth-tokens-env',
      'TOKENS',
      '--body-timeout-ms',
      String(BODY_TIMEOUT_MS),
      '--http',
      '127.0.0.1:0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TOKENS: TOKEN } },
  );
  child.once('exit', (code) => {
    if (code !== 0 && code !== null) process.stderr.write(`bridge exited with ${code}\n`);
  });
  let stderr = '';
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(new URL(match[1]));
    });
    child.once('exit', () => reject(new Error(`the bridge did not start:\n${stderr}`)));
  });
  return { child, url };
}

function open(url: URL): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

function head(url: URL, length: number, headers: string[] = []): string {
  return [
    `POST ${url.pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${length}`,
    ...headers,
    '',
    '',
  ].join('\r\n');
}

// Sends nearly the whole body unless the server stops reading (the point of the exercise).
async function flood(url: URL): Promise<Socket> {
  const socket = await open(url);
  socket.on('error', () => {});
  socket.write(head(url, 4 * MiB));
  const chunk = Buffer.alloc(64 * 1024, 'a');
  for (let sent = 0; sent + chunk.length <= 4 * MiB - 1024 && !socket.destroyed; sent += chunk.length) {
    if (!socket.write(chunk)) {
      const drained = await Promise.race([
        new Promise((resolve) => socket.once('drain', () => resolve(true))),
        new Promise((resolve) => socket.once('close', () => resolve(false))),
        sleep(500).then(() => false),
      ]);
      if (!drained) break;
    }
  }
  return socket;
}

const { child, url } = await start();
// A benchmark that hangs is a failed one: stop the bridge and say so.
const watchdog = setTimeout(() => {
  process.stderr.write('pre-auth flood: gave up after 60 s\n');
  child.kill('SIGKILL');
  process.exit(1);
}, 60_000);
watchdog.unref();
const pid = child.pid as number;
await sleep(300);
const before = rss(pid);
const sockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => flood(url)));
let peak = rss(pid);
for (let i = 0; i < 10; i++) {
  await sleep(100);
  peak = Math.max(peak, rss(pid));
}
for (const socket of sockets) socket.destroy();

// An authenticated slow body: how long until the server closes it.
const slow = await open(url);
slow.on('error', () => {});
// Read what the server sends (its 408), or the socket would never see the server close it.
slow.resume();
const startedAt = performance.now();
slow.write(head(url, 1000, [`Authorization: Bearer ${TOKEN}`]));
slow.write('{"jsonrpc":');
const closedAfter = await new Promise<number>((resolve) =>
  slow.once('close', () => resolve(performance.now() - startedAt)),
);

// Still serving: an authenticated request answers normally.
const answer = await fetch(url, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${TOKEN}`,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'server/discover',
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  }),
});
child.kill('SIGTERM');

const measurements: Measurement[] = [
  {
    name: `RSS growth, ${CONNECTIONS} unauthenticated 4 MiB bodies`,
    value: (peak - before) / MiB,
    unit: 'MiB',
    max: 32,
  },
  {
    name: `slow body closed after (deadline ${BODY_TIMEOUT_MS} ms)`,
    value: closedAfter,
    unit: 'ms',
    max: BODY_TIMEOUT_MS + 1_500,
  },
  {
    name: 'authenticated request answered after the flood (1 = yes)',
    value: answer.ok ? 1 : 0,
    unit: '',
    min: 1,
  },
];
process.exitCode = report(measurements) ? 0 : 1;
