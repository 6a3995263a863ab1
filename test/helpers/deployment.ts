// A real scale-out deployment for tests: Redis on 127.0.0.1 (a free port, its own temp dir, no
// persistence) and nginx in front of several bridge instances (a non-daemon child with its own
// prefix and config in a temp dir). The nginx config is the one the README's "Deploying" shows.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

function which(name: string): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin']) {
    const path = join(dir, name);
    if (dir && existsSync(path)) return path;
  }
  return undefined;
}

export const REDIS_SERVER = which('redis-server');
export const NGINX = which('nginx');

/** Why the deployment tests cannot run here, or `undefined` when they can. */
export const MISSING_BINARIES =
  REDIS_SERVER && NGINX
    ? undefined
    : `needs ${[REDIS_SERVER ? '' : 'redis-server', NGINX ? '' : 'nginx'].filter(Boolean).join(' and ')} (apt-get install redis-server nginx; CI installs them in .ci/run)`;

/** A port free right now on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPort(port: number, child: ChildProcess, what: string, log: () => string) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}:\n${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = netConnect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`${what} did not listen on ${port} in 10 s:\n${log()}`);
}

async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM') {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await once(child, 'exit');
  clearTimeout(timer);
}

/** Redis for one test file. `stop` and `start` simulate losing it and getting it back (same port). */
export interface TestRedis extends AsyncDisposable {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Runs `redis-cli`-like commands through a throwaway connection (for planting foreign values). */
  command(...args: string[]): Promise<unknown>;
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = '';
  const start = async () => {
    child = spawn(
      REDIS_SERVER as string,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await waitForPort(port, child, 'redis-server', () => output);
  };
  await start();
  const { createClient } = await import('@redis/client');
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    start,
    stop: () => stopChild(child, 'SIGKILL'),
    async command(...args) {
      const client = createClient({ url: `redis://127.0.0.1:${port}/0` });
      await client.connect();
      try {
        return await client.sendCommand(args);
      } finally {
        await client.close();
      }
    },
    async [Symbol.asyncDispose]() {
      await stopChild(child, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One bridge instance behind nginx: its name (the session-id prefix) and its endpoint. */
export interface Backend {
  name: string;
  url: URL;
}

/**
 * The nginx `http` block of the README: requests without a session go round-robin to every
 * instance (2026-07-28, and `initialize`); initialize-era requests carry `Mcp-Session-Id`, whose
 * `NAME.` prefix (`--instance NAME`) sends them back to the instance that holds the session.
 */
export function nginxHttpBlock(backends: Backend[], listen: string): string {
  const servers = backends.map((b) => `    server ${b.url.host};`).join('\n');
  const pools = backends
    .map((b) => `upstream bridge_${b.name} {\n    server ${b.url.host};\n    keepalive 16;\n}`)
    .join('\n');
  const routes = backends.map((b) => `    "~^${b.name}\\." bridge_${b.name};`).join('\n');
  return `upstream bridge_any {
${servers}
    keepalive 32;
}
${pools}
map $http_mcp_session_id $bridge_pool {
    default bridge_any;
${routes}
}
server {
    listen ${listen};
    location /mcp {
        proxy_pass http://$bridge_pool;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $host;
        # Streams (SSE) must pass through as they are written.
        proxy_buffering off;
        proxy_cache off;
        proxy_read_timeout 1h;
    }
}`;
}

/** nginx in front of `backends`, as a child process with everything in a temp dir. */
export async function startNginx(backends: Backend[]): Promise<{ url: URL } & AsyncDisposable> {
  const nginx = await runNginx((listen) => nginxHttpBlock(backends, listen));
  return {
    url: new URL(`http://127.0.0.1:${nginx.port}/mcp`),
    [Symbol.asyncDispose]: nginx[Symbol.asyncDispose],
  };
}

/**
 * nginx with the `http` block `block` makes for its `listen` address (127.0.0.1 and a free port),
 * as a child process with everything in a temp dir.
 */
export async function runNginx(
  block: (listen: string) => string,
): Promise<{ port: number } & AsyncDisposable> {
  const prefix = mkdtempSync(join(tmpdir(), 'bridge-nginx-'));
  mkdirSync(join(prefix, 'logs'));
  const port = await freePort();
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((name) => `    ${name}_temp_path ${join(prefix, name)};`)
    .join('\n');
  const conf = `daemon off;
worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'logs', 'error.log')} warn;
events { worker_connections 512; }
http {
    access_log off;
${temp}
${block(`127.0.0.1:${port}`)
  .split('\n')
  .map((line) => `    ${line}`)
  .join('\n')}
}
`;
  writeFileSync(join(prefix, 'nginx.conf'), conf);
  execFileSync(NGINX as string, [
    '-t',
    '-q',
    '-p',
    prefix,
    '-e',
    join(prefix, 'logs', 'error.log'),
    '-c',
    join(prefix, 'nginx.conf'),
  ]);
  let output = '';
  const child = spawn(
    NGINX as string,
    ['-p', prefix, '-e', join(prefix, 'logs', 'error.log'), '-c', join(prefix, 'nginx.conf')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitForPort(port, child, 'nginx', () => output);
  return {
    port,
    async [Symbol.asyncDispose]() {
      await stopChild(child, 'SIGQUIT');
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
