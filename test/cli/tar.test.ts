import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientText, serveCliForTests } from './helpers.js';

// tar's own protections (leading `/` and `..` stripped from member names, a local archive) are
// what keeps an extraction inside the roots: its overlay never lets a caller turn them off. The
// real GNU tar, over a v1 client on stdio.
const { work, outside, client } = serveCliForTests('tar', 'v1', 'stdio', {
  prepare: (root) => writeFileSync(join(root, 'a.txt'), 'a'),
});

describe('tar', () => {
  it('extracts an archive with absolute member names inside the root, never where they point', async () => {
    // An archive made inside the root whose member names an absolute path outside it.
    const target = join(outside, 'planted.txt');
    writeFileSync(target, 'planted');
    execFileSync('tar', ['-cPf', join(work, 'evil.tar'), target]);
    execFileSync('rm', [target]);
    const tools = (await client().listTools()).tools;
    const tar = tools.find((tool) => tool.name === 'tar') as unknown as {
      inputSchema: { properties: Record<string, unknown> };
    };
    expect(tar.inputSchema.properties['absolute-names']).toBeUndefined();
    expect(tar.inputSchema.properties['force-local']).toBeUndefined();
    const refused = await client().callTool('tar', {
      extract: true,
      file: 'evil.tar',
      'absolute-names': true,
    });
    expect(refused.isError).toBe(true);
    const extracted = await client().callTool('tar', { extract: true, file: 'evil.tar' });
    expect(extracted.isError, clientText(extracted)).toBeFalsy();
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(work, target.slice(1)))).toBe(true);
  });

  it('reads a "host:file" archive name as a local file, never through rsh', async () => {
    const listed = await client().callTool('tar', { list: true, file: 'example.invalid:archive.tar' });
    expect(listed.isError).toBe(true);
    expect(clientText(listed)).toContain('archive.tar: Cannot open: No such file');
    expect(clientText(listed)).not.toMatch(/rsh|ssh|Cannot connect|resolve/i);
  });
});
