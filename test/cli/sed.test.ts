import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCliForTests, clientStdout as stdoutOf } from './helpers.js';

// A sed script is a program: `e` runs a shell command, `r` and `w` read and write any file. The
// overlay runs GNU sed with --sandbox, so the script may come from the caller. Real sed, v2 on stdio.
const { work, outside, client } = serveCliForTests('sed', 'v2', 'stdio', {
  prepare: (root) => writeFileSync(join(root, 'notes.txt'), 'alpha\nbeta\n'),
});

describe('sed', () => {
  it('edits with a script given as an operand or through --expression', async () => {
    const tool = (await client().listTools()).tools.find((entry) => entry.name === 'sed') as unknown as {
      inputSchema: { properties: Record<string, unknown> };
    };
    expect(tool.inputSchema.properties.expression).toBeDefined();
    expect(tool.inputSchema.properties.sandbox).toBeUndefined();
    const operand = await client().callTool('sed', { args: ['s/alpha/ALPHA/', 'notes.txt'] });
    expect(stdoutOf(operand)).toBe('ALPHA\nbeta\n');
    const expression = await client().callTool('sed', { expression: 's/beta/BETA/', args: ['notes.txt'] });
    expect(stdoutOf(expression)).toBe('alpha\nBETA\n');
  });

  it('runs no shell command and reads or writes no file through its script', async () => {
    const marker = join(work, 'ran');
    const secret = join(outside, 'secret.txt');
    writeFileSync(secret, 'secret');
    const written = join(outside, 'written.txt');
    for (const script of [`1e touch ${marker}`, `1r ${secret}`, `w ${written}`]) {
      const viaOperand = await client().callTool('sed', { args: [script, 'notes.txt'] });
      expect(viaOperand.isError, script).toBe(true);
      const viaExpression = await client().callTool('sed', { expression: script, args: ['notes.txt'] });
      expect(viaExpression.isError, script).toBe(true);
      expect(stdoutOf(viaExpression)).not.toContain('secret');
    }
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(written)).toBe(false);
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
  });
});
