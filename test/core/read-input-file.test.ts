// The files a user names are regular files or pipes: a FIFO without a writer never holds the process
// (it stops on SIGTERM), a device is refused, nothing past a bound is read, and a spec read from a
// pipe is never cached (its path names another pipe on the next start).
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashFile } from '../../adapters/openapi/cache-tools.js';
import { readInputFile } from '../../src/index.js';
import { readInputFileSync } from '../../src/read-input-file.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

const dir = mkdtempSync(join(tmpdir(), 'bridge-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fifos = 0;
function fifo(): string {
  const path = join(dir, `pipe-${++fifos}`);
  execFileSync('mkfifo', [path]);
  return path;
}

/** Writes `text` into the FIFO `path` from another process, once a reader has opened it. */
function writeLater(path: string, text: string): void {
  const writer = spawn('sh', ['-c', 'cat > "$1"', 'sh', path], { stdio: ['pipe', 'ignore', 'ignore'] });
  writer.stdin.end(text);
}

const options = { what: 'the test file', maxBytes: 1024 };

describe('readInputFile', () => {
  it('reads a regular file, leaving the spare bytes asked for after it', async () => {
    const file = join(dir, 'plain.txt');
    writeFileSync(file, 'hello');
    const { bytes, spare } = await readInputFile(file, { ...options, spare: 100 });
    expect(bytes.toString()).toBe('hello');
    expect(spare).toBeGreaterThanOrEqual(100);
    expect(bytes.buffer.byteLength - bytes.byteOffset - bytes.length).toBeGreaterThanOrEqual(spare);
  });

  it('reads a pipe whose writer comes later, to its end', async () => {
    const path = fifo();
    const reading = readInputFile(path, { ...options, maxBytes: 1_000_000 });
    const text = 'x'.repeat(300_000);
    writeLater(path, text);
    expect((await reading).bytes.toString()).toBe(text);
  });

  it('gives up waiting for a writer that never comes when its signal aborts', async () => {
    const path = fifo();
    const controller = new AbortController();
    const reading = readInputFile(path, { ...options, signal: controller.signal });
    controller.abort(new Error('stopped'));
    await expect(reading).rejects.toThrow('stopped');
    // Nothing of it is left open in this process.
    await waitFor(() => !openFiles(process.pid).includes(path));
  });

  it('refuses a device and a directory without reading them', async () => {
    await expect(readInputFile('/dev/zero', options)).rejects.toThrow(
      'cannot read the test file /dev/zero: it is not a regular file or a pipe (a device, a socket or a directory)',
    );
    await expect(readInputFile(dir, options)).rejects.toThrow(
      `cannot read the test file ${dir}: it is not a regular file or a pipe`,
    );
    await expect(readInputFile(join(dir, 'missing'), options)).rejects.toThrow(
      `cannot read the test file ${join(dir, 'missing')}: no such file`,
    );
  });

  it('refuses a UNIX socket by name too (its open fails before anything can look at it)', async () => {
    const path = join(dir, 'socket');
    const server = createServer().listen(path);
    await once(server, 'listening');
    try {
      await expect(readInputFile(path, options)).rejects.toThrow(
        `cannot read the test file ${path}: it is not a regular file or a pipe`,
      );
    } finally {
      server.close();
    }
  });

  it('stops at its bound, for a file and for a pipe that sends more', async () => {
    const file = join(dir, 'large.txt');
    writeFileSync(file, 'y'.repeat(2048));
    await expect(readInputFile(file, options)).rejects.toThrow(
      `cannot read the test file ${file}: it is larger than`,
    );
    const path = fifo();
    const reading = readInputFile(path, options);
    writeLater(path, 'z'.repeat(100_000));
    await expect(reading).rejects.toThrow(`cannot read the test file ${path}: it is larger than`);
  });

  it('readInputFileSync reads a regular file and a pipe with a writer, and refuses a device', () => {
    const file = join(dir, 'sync.txt');
    writeFileSync(file, 'sync');
    expect(readInputFileSync(file, options).toString()).toBe('sync');
    // A child process whose stdin is a pipe from `printf`.
    const module = JSON.stringify(join(process.cwd(), 'dist/src/read-input-file.js'));
    const script = `const { readInputFileSync } = await import(${module}); process.stdout.write(readInputFileSync('/dev/stdin', { what: 'x', maxBytes: 100 }).toString());`;
    const pipe = execFileSync('sh', [
      '-c',
      'printf "from a pipe\\n" | "$0" --input-type=module -e "$1"',
      process.execPath,
      script,
    ]).toString();
    expect(pipe).toBe('from a pipe\n');
    expect(() => readInputFileSync('/dev/zero', options)).toThrow('it is not a regular file or a pipe');
  });
});

describe('a bridge given a pipe', () => {
  it('stops on SIGTERM while it waits for the writer of a FIFO spec', async () => {
    const path = fifo();
    const child = spawn(process.execPath, [BRIDGE_BIN, 'openapi', path], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Its load has begun (the code cache is read first): wait until the process has the FIFO open.
    await waitFor(() => openFiles(child.pid as number).includes(path));
    child.kill('SIGTERM');
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stderr).toBe('');
  });

  it('never caches a spec from a pipe: the next pipe may hold another spec', async () => {
    const cache = join(dir, 'cache');
    const spec = (title: string, operationId: string) =>
      JSON.stringify({
        openapi: '3.0.3',
        info: { title, version: '1' },
        paths: { '/a': { get: { operationId, responses: { '200': { description: 'ok' } } } } },
      });
    // One FIFO, written anew for each start, as a script feeding the bridge might do.
    const path = fifo();
    for (const name of ['first', 'second']) {
      writeLater(path, spec(name, `${name}Op`));
      const tools = await listTools(['openapi', path, '--tools', 'all'], { BRIDGE_CACHE_DIR: cache });
      expect(tools).toEqual([`${name}Op`]);
    }
    expect(readdirSync(cache).includes('openapi') ? readdirSync(join(cache, 'openapi')) : []).toEqual([]);
  });
});

describe('a spec file replaced by a FIFO', () => {
  it('is neither hashed nor opened by the cache check (a waiting writer is not released)', async () => {
    const path = fifo();
    const writer = spawn('sh', ['-c', 'printf x > "$1" && echo written', 'sh', path], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let said = '';
    writer.stdout.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    expect(hashFile(path)).toBeUndefined();
    // Nothing opened the FIFO to read: the writer still waits for a reader, and gets one here.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(said).toBe('');
    expect((await readInputFile(path, options)).bytes.toString()).toBe('x');
    await once(writer, 'exit');
    expect(said).toBe('written\n');
  });

  it('is read from the FIFO, not answered from the cache of the file it replaced', async () => {
    const cache = join(dir, 'cache-replaced');
    const path = join(dir, 'replaced.json');
    const spec = (operationId: string) =>
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: operationId, version: '1' },
        paths: { '/a': { get: { operationId, responses: { '200': { description: 'ok' } } } } },
      });
    writeFileSync(path, spec('fromFile'));
    const env = { BRIDGE_CACHE_DIR: cache };
    expect(await listTools(['openapi', path, '--tools', 'all'], env)).toEqual(['fromFile']);
    // The cache is written after start-up (or at the end of a short session): it is there now.
    expect(readdirSync(join(cache, 'openapi'))).toHaveLength(1);
    rmSync(path);
    execFileSync('mkfifo', [path]);
    writeLater(path, spec('fromPipe'));
    expect(await listTools(['openapi', path, '--tools', 'all'], env)).toEqual(['fromPipe']);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

function openFiles(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return execFileSync('readlink', [`/proc/${pid}/fd/${fd}`])
          .toString()
          .trim();
      } catch {
        return '';
      }
    });
  } catch {
    return [];
  }
}

/** Starts the bridge, lists its tools over stdio, and ends it. */
async function listTools(args: string[], env: Record<string, string>): Promise<string[]> {
  const child = spawn(process.execPath, [BRIDGE_BIN, ...args], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, ...env },
  });
  const lines: string[] = [];
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    lines.push(...parts);
  });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  await waitFor(() => lines.some((line) => line.endsWith('"id":2}')));
  child.stdin.end();
  await once(child, 'exit');
  const answer = JSON.parse(lines.find((line) => line.endsWith('"id":2}')) as string) as {
    result: { tools: Array<{ name: string }> };
  };
  return answer.result.tools.map((tool) => tool.name);
}

describe('the other files a user names', () => {
  const shop = join(process.cwd(), 'fixtures/graphql/shop.graphql');

  it('refuses a device as a config file or a GraphQL schema, exit 2', async () => {
    expect(await run(['serve', '/dev/zero'])).toEqual({
      code: 2,
      stderr:
        'bridge serve: cannot read the config file /dev/zero: it is not a regular file or a pipe (a device, a socket or a directory)\n',
    });
    const graphql = await run(['graphql', 'http://127.0.0.1:9/graphql', '--schema', '/dev/zero']);
    expect(graphql.code).toBe(2);
    expect(graphql.stderr).toContain(
      'cannot read the schema file /dev/zero: it is not a regular file or a pipe (a device, a socket or a directory)',
    );
  });

  it('counts an operation file before graphql-js parses it: a deep one is refused by name', async () => {
    const operations = mkdtempSync(join(dir, 'ops-'));
    writeFileSync(join(operations, 'deep.graphql'), `query Deep ${'{ a '.repeat(200)}${'}'.repeat(200)}\n`);
    const result = await run([
      'graphql',
      'http://127.0.0.1:9/graphql',
      '--schema',
      shop,
      '--operations',
      operations,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `the operation file ${join(operations, 'deep.graphql')} is refused: the document nests selection sets, lists or objects deeper than 128 levels`,
    );
    expect(result.stderr).not.toContain('Maximum call stack');
  });

  it('stops on SIGTERM while an operation file is a FIFO without a writer', async () => {
    const operations = mkdtempSync(join(dir, 'ops-'));
    const path = join(operations, 'waiting.graphql');
    execFileSync('mkfifo', [path]);
    const child = spawn(
      process.execPath,
      [BRIDGE_BIN, 'graphql', 'http://127.0.0.1:9/graphql', '--schema', shop, '--operations', operations],
      { stdio: ['pipe', 'ignore', 'ignore'] },
    );
    await waitFor(() => openFiles(child.pid as number).includes(path));
    child.kill('SIGTERM');
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  });
});

/** Runs the bridge to its exit (these commands fail before serving). */
async function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BRIDGE_BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stderr };
}
