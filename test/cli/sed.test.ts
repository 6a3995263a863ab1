import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type TestClient } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { tempDir } from './helpers.js';

// A sed script is a program: `e` runs a shell command, `r` and `w` read and write any file. The
// overlay runs GNU sed with --sandbox, so the script may come from the caller. Real sed, v2 on stdio.
const work = tempDir('bridge-sed-');
const outside = tempDir('bridge-sed-outside-');
const cache = tempDir('bridge-sed-cache-');
let client: TestClient;

beforeAll(async () => {
  writeFileSync(join(work.path, 'notes.txt'), 'alpha\nbeta\n');
  client = await connect('v2', 'stdio', {
    script: BRIDGE_BIN,
    args: ['cli', 'sed', '--root', work.path, '--no-watch'],
    env: { BRIDGE_CACHE_DIR: cache.path },
    cwd: work.path,
  });
}, 60_000);
afterAll(async () => {
  await client?.[Symbol.asyncDispose]();
  for (const dir of [work, outside, cache]) dir[Symbol.dispose]();
});

const stdoutOf = (result: { structuredContent?: unknown; content: Array<Record<string, unknown>> }) =>
  String((result.structuredContent as { stdout?: string } | undefined)?.stdout ?? '');

describe('sed', () => {
  it('edits with a script given as an operand or through --expression', async () => {
    const tool = (await client.listTools()).tools.find((entry) => entry.name === 'sed') as unknown as {
      inputSchema: { properties: Record<string, unknown> };
    };
    expect(tool.inputSchema.properties.expression).toBeDefined();
    expect(tool.inputSchema.properties.sandbox).toBeUndefined();
    const operand = await client.callTool('sed', { args: ['s/alpha/ALPHA/', 'notes.txt'] });
    expect(stdoutOf(operand)).toBe('ALPHA\nbeta\n');
    const expression = await client.callTool('sed', { expression: 's/beta/BETA/', args: ['notes.txt'] });
    expect(stdoutOf(expression)).toBe('alpha\nBETA\n');
  });

  it('runs no shell command and reads or writes no file through its script', async () => {
    const marker = join(work.path, 'ran');
    const secret = join(outside.path, 'secret.txt');
    writeFileSync(secret, 'secret');
    const written = join(outside.path, 'written.txt');
    for (const script of [`1e touch ${marker}`, `1r ${secret}`, `w ${written}`]) {
      const viaOperand = await client.callTool('sed', { args: [script, 'notes.txt'] });
      expect(viaOperand.isError, script).toBe(true);
      const viaExpression = await client.callTool('sed', { expression: script, args: ['notes.txt'] });
      expect(viaExpression.isError, script).toBe(true);
      expect(stdoutOf(viaExpression)).not.toContain('secret');
    }
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(written)).toBe(false);
    expect(readFileSync(join(work.path, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
  });
});
