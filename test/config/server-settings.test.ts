import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';

import { CONFIG_BIN, onToolsChanged, tempDir, toolNames, toolNamesSoon, writeYaml } from './helpers.js';

const PETSTORE = resolve('fixtures/config/inspect/petstore.yaml');

describe('the server section and the shorthand path', () => {
  it('serves HTTP as the config says, without flags, and enforces a per-tool timeoutMs', async () => {
    await using dir = await tempDir();
    await writeYaml(dir.file('tools.yaml'), [
      { name: 'slow', description: 'Never in time.', delayMs: 10_000 },
    ]);
    await writeYaml(dir.file('bridge.config.yaml'), {
      server: { transport: 'http', host: '127.0.0.1', port: 0, instructions: 'Use slow sparingly.' },
      sources: [{ kind: 'fixture', options: { file: 'tools.yaml' }, tools: { slow: { timeoutMs: 300 } } }],
    });
    const child = spawn(process.execPath, [CONFIG_BIN, 'serve', dir.file('bridge.config.yaml')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await using _stop = {
      async [Symbol.asyncDispose]() {
        if (child.exitCode !== null) return;
        child.kill('SIGTERM');
        await once(child, 'exit');
      },
    };
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(stderr);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', () => reject(new Error(`exited before listening:\n${stderr}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const client = new Client({ name: 'settings-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      expect(client.getInstructions()).toBe('Use slow sparingly.');
      const started = Date.now();
      const result = await client.callTool({ name: 'slow', arguments: {} });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('timed out after 300 ms');
    } finally {
      await client.close();
    }
  });

  it('reloads a shorthand command when its spec file changes (a one-source config)', async () => {
    await using dir = await tempDir();
    const spec = (paths: Record<string, string>) => ({
      openapi: '3.1.0',
      info: { title: 'Reloading', version: '1' },
      servers: [{ url: 'http://127.0.0.1:9' }],
      paths: Object.fromEntries(
        Object.entries(paths).map(([path, id]) => [
          path,
          { get: { operationId: id, summary: id, responses: { '200': { description: 'OK' } } } },
        ]),
      ),
    });
    await writeFile(dir.file('spec.json'), JSON.stringify(spec({ '/a': 'getA' })));
    await using client = await connect('v1', 'stdio', {
      script: BRIDGE_BIN,
      args: ['openapi', dir.file('spec.json')],
    });
    const changes = await onToolsChanged(client);
    expect(await toolNames(client)).toEqual(['getA']);
    await writeFile(dir.file('spec.json'), JSON.stringify(spec({ '/a': 'getA', '/b': 'getB' })));
    await changes.next();
    expect(await toolNamesSoon(client, ['getA', 'getB'])).toEqual(['getA', 'getB']);
  });

  it('with --no-watch, reloads only on SIGHUP', async () => {
    await using dir = await tempDir();
    await writeYaml(dir.file('tools.yaml'), [{ name: 'one', description: 'One.' }]);
    await writeYaml(dir.file('bridge.config.yaml'), {
      sources: [{ kind: 'fixture', options: { file: 'tools.yaml' } }],
    });
    await using bridge = await startHttpBridge({
      script: CONFIG_BIN,
      args: ['serve', dir.file('bridge.config.yaml'), '--no-watch'],
    });
    const client = new Client({ name: 'hup-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(bridge.url));
    try {
      const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
      await writeYaml(dir.file('tools.yaml'), [
        { name: 'one', description: 'One.' },
        { name: 'two', description: 'Two.' },
      ]);
      await sleep(800);
      expect(await names()).toEqual(['one']);
      bridge.child.kill('SIGHUP');
      for (let tries = 0; tries < 50 && (await names()).length < 2; tries++) await sleep(100);
      expect(await names()).toEqual(['one', 'two']);
      expect(bridge.stderr()).toContain('reloaded: 2 tools (added two)');
    } finally {
      await client.close();
    }
  });

  it('says a reload that changed nothing changed nothing, for an OpenAPI source too', async () => {
    await using dir = await tempDir();
    await writeFile(dir.file('petstore.yaml'), await readFile(PETSTORE));
    await writeYaml(dir.file('bridge.config.yaml'), {
      sources: [{ kind: 'openapi', options: { spec: 'petstore.yaml' } }],
    });
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['serve', dir.file('bridge.config.yaml'), '--no-watch'],
    });
    // As in the test above: the SIGHUP handler is set once serving has begun.
    await sleep(800);
    bridge.child.kill('SIGHUP');
    for (let tries = 0; tries < 150 && !bridge.stderr().includes('reloaded:'); tries++) await sleep(100);
    // Its tools' functions (invoke, preview) are new after a load; what they are is not.
    expect(bridge.stderr()).toMatch(/reloaded: \d+ tools \(no change\)/);
  });
});
