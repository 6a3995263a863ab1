// A spec can hold millions of small operations within its 256 MiB: the bridge serves 100,000 of
// them at most (the first by path), says so, and serves those as usual.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { LineClient } from '../helpers/line-client.js';
import { SESSION_VERSION } from '../helpers/raw-session.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

const dir = mkdtempSync(join(tmpdir(), 'bridge-many-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('serves the first 100,000 operations of a spec of 100,010, with a warning naming both counts', async () => {
  const paths: Record<string, unknown> = {};
  for (let at = 0; at < 100_010; at++) {
    paths[`/p${at}`] = { get: { operationId: `op${at}`, responses: { '200': { description: 'ok' } } } };
  }
  const spec = join(dir, 'many.json');
  writeFileSync(spec, JSON.stringify({ openapi: '3.0.3', info: { title: 'many', version: '1' }, paths }));
  const args = ['openapi', spec, '--base-url', 'http://127.0.0.1:9', '--no-cache'];

  const stderr = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, [BRIDGE_BIN, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
    let text = '';
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('dynamic meta-tools')) child.stdin.end();
    });
    child.once('exit', () => resolve(text));
  });
  expect(stderr).toContain(
    'many.json has 100,010 operations, more than the 100,000 the bridge serves from one spec: the first 100,000 by path are served; choose the ones you need with --include',
  );
  expect(stderr).toContain('100000 operations served through 4 dynamic meta-tools');

  const client = new LineClient(args);
  try {
    await client.initialize(1, SESSION_VERSION, 'many');
    const describe = async (operation: string) =>
      JSON.parse(
        await client.line(operation, 'tools/call', { name: 'describe_operation', arguments: { operation } }),
      ).result as { isError?: boolean; content: Array<{ text: string }> };
    // By path, `/p99990`…`/p99999` come last: those ten are the ones left out.
    const kept = await describe('op100009');
    expect(kept.isError, kept.content[0]?.text).toBeFalsy();
    expect((await describe('op99999')).isError).toBe(true);
    expect((await describe('op99989')).isError).toBeFalsy();
  } finally {
    await client.close();
  }
}, 60_000);
