import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientText, serveCliForTests } from './helpers.js';

// tar's own protections (leading `/` and `..` stripped from member names, a local archive) keep one
// extraction inside the roots, and its overlay never lets a caller turn them off. What they do not
// stop is an extraction writing through a symbolic link that an earlier one (or any program) left
// in the roots: extraction is offered only with `--allow-option extract`, and then contained by
// --sandbox. The real GNU tar, over a v1 client on stdio.
const prepare = (root: string) => writeFileSync(join(root, 'a.txt'), 'a');
const plain = serveCliForTests('tar', 'v1', 'stdio', { prepare });
const allowed = serveCliForTests('tar', 'v1', 'stdio', { args: ['--allow-option', 'extract'], prepare });
const sandboxed = serveCliForTests('tar', 'v1', 'stdio', {
  args: ['--allow-option', 'extract', '--sandbox'],
  prepare,
});

type Listed = { name: string; inputSchema: { properties: Record<string, unknown> } };

describe('tar', () => {
  it('does not offer extraction by default, and a call asking for it extracts nothing', async () => {
    const { work, client } = plain;
    execFileSync('tar', ['-cf', join(work, 'one.tar'), '-C', work, 'a.txt']);
    const tar = (await client().listTools()).tools.find((tool) => tool.name === 'tar') as unknown as Listed;
    expect(tar.inputSchema.properties.extract).toBeUndefined();
    expect(tar.inputSchema.properties['files-from']).toBeUndefined();
    expect(tar.inputSchema.properties.dereference).toBeUndefined();
    // The user reads in the log how to offer one; the model only that it is not offered.
    expect(client().stderr()).toMatch(
      /cli tar: not offered for safety: [^\n]*--extract[^\n]*--allow-option NAME offers one/,
    );
    rmSync(join(work, 'a.txt'));
    const refused = await client().callTool('tar', { extract: true, file: 'one.tar' });
    expect(refused.isError).toBe(true);
    expect(existsSync(join(work, 'a.txt'))).toBe(false);
  });

  it('extracts an archive with absolute member names inside the root, never where they point', async () => {
    const { work, outside, client } = allowed;
    // An archive made inside the root whose member names an absolute path outside it.
    const target = join(outside, 'planted.txt');
    writeFileSync(target, 'planted');
    execFileSync('tar', ['-cPf', join(work, 'evil.tar'), target]);
    execFileSync('rm', [target]);
    const tar = (await client().listTools()).tools.find((tool) => tool.name === 'tar') as unknown as Listed;
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

  it('under --sandbox, never writes through a link an earlier extraction planted', async () => {
    const { work, outside, client } = sandboxed;
    // Two archives made elsewhere: one holds `lnk`, a link to the outside directory; the other a
    // file `lnk/pwned.txt`, which a second extraction would write through that link.
    const scratch = mkdtempSync(join(tmpdir(), 'bridge-tar-scratch-'));
    try {
      symlinkSync(relative(work, outside), join(scratch, 'lnk'));
      execFileSync('tar', ['-cf', join(work, 'link.tar'), '-C', scratch, 'lnk']);
      rmSync(join(scratch, 'lnk'));
      mkdirSync(join(scratch, 'lnk'));
      writeFileSync(join(scratch, 'lnk', 'pwned.txt'), 'pwned');
      execFileSync('tar', ['-cf', join(work, 'write.tar'), '-C', scratch, 'lnk/pwned.txt']);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    const planted = await client().callTool('tar', { extract: true, file: 'link.tar' });
    expect(planted.isError, clientText(planted)).toBeFalsy();
    await client().callTool('tar', { extract: true, file: 'write.tar' });
    expect(existsSync(join(outside, 'pwned.txt'))).toBe(false);
  });

  it('reads a "host:file" archive name as a local file, never through rsh', async () => {
    const listed = await plain.client().callTool('tar', { list: true, file: 'example.invalid:archive.tar' });
    expect(listed.isError).toBe(true);
    expect(clientText(listed)).toContain('archive.tar: Cannot open: No such file');
    expect(clientText(listed)).not.toMatch(/rsh|ssh|Cannot connect|resolve/i);
  });
});
