import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connect, MATRIX } from '../helpers/connect.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, distPath, startHttpBridge } from '../helpers/start-bridge.js';

const echoServer = { script: distPath('test/servers/echo-server.js'), args: [] };
const dir = mkdtempSync(join(tmpdir(), 'bridge-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe.each(MATRIX)('cancellation with the $kind client over $wire', ({ kind, wire }) => {
  it('reaches the tool’s AbortSignal', async () => {
    await using client = await connect(kind, wire, echoServer);
    const marker = join(dir, `cancel-${kind}-${wire}`);
    const controller = new AbortController();
    const call = client.callTool('wait_for_abort', { marker }, { signal: controller.signal });
    await waitFor(() => existsSync(`${marker}.started`), 'the call to start');
    controller.abort();
    await expect(call).rejects.toThrow();
    // The file may exist a moment before its content is written: wait for the content.
    await waitFor(
      () => existsSync(marker) && readFileSync(marker, 'utf8') === 'aborted',
      'the tool to see the abort',
    );
    // The server is still serving.
    expect((await client.callTool('echo', { text: 'after' })).content[0]?.text).toBe('after');
  });
});

describe('shutdown', () => {
  it('aborts calls in flight on SIGTERM and exits (HTTP)', async () => {
    const bridge = await startHttpBridge(echoServer);
    const marker = join(dir, 'sigterm');
    const call = modernRequest(bridge.url, 'tools/call', {
      name: 'wait_for_abort',
      arguments: { marker },
    }).catch((error: unknown) => error);
    await waitFor(() => existsSync(`${marker}.started`), 'the call to start');
    const exited = once(bridge.child, 'exit');
    bridge.child.kill('SIGTERM');
    await exited;
    await call;
    expect(existsSync(marker)).toBe(true);
    expect(bridge.child.exitCode).toBe(0);
  });

  it('exits when the client closes stdin, aborting calls in flight', async () => {
    const child = spawn(process.execPath, [echoServer.script], { stdio: ['pipe', 'pipe', 'inherit'] });
    const marker = join(dir, 'stdin-close');
    const lines: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await waitFor(() => lines.length > 0, 'the initialize answer');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'wait_for_abort', arguments: { marker } },
    });
    await waitFor(() => existsSync(`${marker}.started`), 'the call to start');
    const exited = once(child, 'exit');
    child.stdin.end();
    const [code] = await exited;
    expect(code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('answers malformed stdio lines with a parse error and keeps serving', async () => {
    const child = spawn(process.execPath, [echoServer.script], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    child.stdin.write('{not json\n');
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      })}\n`,
    );
    await waitFor(() => lines.some((line) => line.includes('"id":1')), 'the initialize answer');
    const parseError = lines.find((line) => line.includes('-32700'));
    expect(parseError).toBeDefined();
    const exited = once(child, 'exit');
    child.stdin.end();
    await exited;
  });
});

describe('a signal before the bridge is fully up', () => {
  const spec = join(dir, 'items.json');
  writeFileSync(
    spec,
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'items', version: '1' },
      paths: { '/items': { get: { operationId: 'listItems', responses: { '200': { description: 'ok' } } } } },
    }),
  );

  function start(target: string, cacheDir: string) {
    const child = spawn(
      process.execPath,
      [BRIDGE_BIN, 'openapi', target, '--tools', 'all', '--http', '127.0.0.1:0'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, BRIDGE_CACHE_DIR: cacheDir },
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    return { child, stderr: () => stderr };
  }

  it('SIGTERM right after "listening" stops it cleanly: exit 0, its conversion cache written', async () => {
    const cacheDir = join(dir, 'cache-listening');
    const { child, stderr } = start(spec, cacheDir);
    await waitFor(() => stderr().includes('listening'), 'the bridge to listen');
    child.kill('SIGTERM');
    const [code, signal] = await once(child, 'exit');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(readdirSync(join(cacheDir, 'openapi')).some((name) => name.endsWith('.json'))).toBe(true);
  });

  it('SIGTERM while the spec is still loading stops it too, with exit 0', async () => {
    // A spec URL that never answers: the load waits on it.
    const silent = createServer(() => {});
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/spec.json`;
      const { child } = start(url, join(dir, 'cache-loading'));
      await once(silent, 'connection');
      child.kill('SIGTERM');
      const [code, signal] = await once(child, 'exit');
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
