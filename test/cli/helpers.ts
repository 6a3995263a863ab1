import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { createCliSource } from '../../adapters/cli/index.js';
import type { CliOptions } from '../../adapters/cli/options.js';
import {
  type Logger,
  MemoryResourceStore,
  type Progress,
  type ToolContext,
  ToolRegistry,
  type ToolResult,
} from '../../src/index.js';
import { type ClientKind, connect, type TestClient } from '../helpers/connect.js';
import { BRIDGE_BIN, type Wire } from '../helpers/start-bridge.js';

/** The fake CLI under fixtures/cli. */
export const FAKE_CLI = fileURLToPath(new URL('../../fixtures/cli/fake-cli.mjs', import.meta.url));

/** A temporary directory removed on dispose. */
export function tempDir(prefix = 'bridge-cli-'): { path: string } & Disposable {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * What the CLI attack tests need: a root directory and, beside it, an outside one holding
 * `secret.txt` (`SECRET` and a newline), in a temp directory `base`; and a cache directory of their
 * own, set as BRIDGE_CACHE_DIR. Disposing removes both and sets BRIDGE_CACHE_DIR back.
 */
export function outsideWorld(prefix: string) {
  const previous = process.env.BRIDGE_CACHE_DIR;
  const cache = tempDir(`${prefix}cache-`);
  process.env.BRIDGE_CACHE_DIR = cache.path;
  const base = tempDir(prefix);
  const world = {
    cache,
    base,
    ROOT: join(base.path, 'root'),
    OUT: join(base.path, 'outside'),
    SECRET: `TOP-SECRET-${process.pid}`,
    [Symbol.dispose]() {
      if (previous === undefined) delete process.env.BRIDGE_CACHE_DIR;
      else process.env.BRIDGE_CACHE_DIR = previous;
      base[Symbol.dispose]();
      cache[Symbol.dispose]();
    },
  };
  mkdirSync(world.ROOT);
  mkdirSync(world.OUT);
  writeFileSync(join(world.OUT, 'secret.txt'), `${world.SECRET}\n`);
  return world;
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
      GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
    },
  });
}

/** A git repository with `commits` commits made quickly through `git fast-import`. */
export function makeRepo(dir: string, commits = 3): string {
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Test User');
  git(dir, 'config', 'user.email', 'test@example.com');
  let stream = '';
  for (let i = 1; i <= commits; i++) {
    const message = `commit number ${i}\n`;
    const content = `line ${i}\n`;
    stream += `commit refs/heads/main\nmark :${i}\ncommitter Test User <test@example.com> ${1_700_000_000 + i * 60} +0000\n`;
    stream += `data ${Buffer.byteLength(message)}\n${message}`;
    if (i > 1) stream += `from :${i - 1}\n`;
    stream += `M 644 inline file.txt\ndata ${Buffer.byteLength(content)}\n${content}\n`;
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, input: stream });
  git(dir, 'checkout', '-q', 'main');
  return dir;
}

/** A logger that keeps what it is told. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warning'), error: keep('error') };
}

/** A loaded source with a registry that validates and calls tools as the server does. */
export interface LoadedCli extends AsyncDisposable {
  registry: ToolRegistry;
  store: MemoryResourceStore;
  log: ReturnType<typeof memoryLogger>;
  call(name: string, args?: Record<string, unknown>, extra?: Partial<ToolContext>): Promise<ToolResult>;
  progress: Progress[];
}

export async function loadCli(options: CliOptions, baseDir: string): Promise<LoadedCli> {
  const source = createCliSource(options, baseDir);
  const log = memoryLogger();
  const registry = await ToolRegistry.load([source], { log, signal: new AbortController().signal });
  const store = new MemoryResourceStore();
  const progress: Progress[] = [];
  return {
    registry,
    store,
    log,
    progress,
    async call(name, args = {}, extra = {}) {
      const tool = registry.get(name);
      if (!tool) throw new Error(`no tool ${name}; have ${registry.tools.map((t) => t.name).join(', ')}`);
      const context: ToolContext = {
        signal: new AbortController().signal,
        progress: (update) => progress.push(update),
        log,
        resources: store,
        caller: 'test',
        ...extra,
      };
      return registry.call(tool, args, context);
    },
    async [Symbol.asyncDispose]() {
      await source.close?.();
    },
  };
}

/** All text of a result, joined. */
export function textOf(result: ToolResult): string {
  return result.content.map((block) => ('text' in block ? block.text : '')).join('\n');
}

/** Whether a process is still alive (a zombie waiting to be reaped counts as dead). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

/**
 * `bridge cli <program>` for one test file: served by the bridge's own binary to a real `kind`
 * client over `wire`, with its root (`work`, also the working directory), a directory outside it
 * and a discovery cache of its own, all removed after the file's tests. `prepare` fills the root
 * before the bridge starts.
 */
export function serveCliForTests(
  program: string,
  kind: ClientKind,
  wire: Wire,
  options: {
    args?: string[];
    /** Added to the bridge's environment (a function: of the root). */
    env?: Record<string, string> | ((root: string) => Record<string, string>);
    prepare?: (root: string) => void;
  } = {},
): { work: string; outside: string; client: () => TestClient } {
  const work = tempDir(`bridge-${program}-`);
  const outside = tempDir(`bridge-${program}-outside-`);
  const cache = tempDir(`bridge-${program}-cache-`);
  let client: TestClient | undefined;
  beforeAll(async () => {
    options.prepare?.(work.path);
    client = await connect(kind, wire, {
      script: BRIDGE_BIN,
      args: ['cli', program, '--root', work.path, '--no-watch', ...(options.args ?? [])],
      env: {
        BRIDGE_CACHE_DIR: cache.path,
        ...(typeof options.env === 'function' ? options.env(work.path) : options.env),
      },
      cwd: work.path,
    });
  }, 60_000);
  afterAll(async () => {
    await client?.[Symbol.asyncDispose]();
    for (const dir of [work, outside, cache]) dir[Symbol.dispose]();
  });
  return {
    work: work.path,
    outside: outside.path,
    client: () => {
      if (!client) throw new Error(`bridge cli ${program} has not started`);
      return client;
    },
  };
}

/** All text blocks of a client's tool result, joined. */
export function clientText(result: { content: Array<Record<string, unknown>> }): string {
  return result.content.map((block) => String(block.text ?? '')).join('\n');
}

/** The `stdout` of a CLI tool's structured result. */
export function clientStdout(result: Record<string, unknown>): string {
  return String((result.structuredContent as { stdout?: string } | undefined)?.stdout ?? '');
}
