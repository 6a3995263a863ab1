import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientStdout, clientText, serveCliForTests } from './helpers.js';

// A config file sets options where no argument check sees them: curl's -K can name an output file
// anywhere, as OpenSSL's -config and GnuPG's --options can load code. The real curl, v2 over HTTP.
const { work, outside, client } = serveCliForTests('curl', 'v2', 'http', {
  prepare: (root) => writeFileSync(join(root, 'page.txt'), 'inside the root\n'),
});

describe("curl's config file", () => {
  it('is not offered, so a config naming an output outside the roots writes nothing', async () => {
    const written = join(outside, 'got.txt');
    writeFileSync(
      join(work, 'evil.cfg'),
      `url = "file://${join(work, 'page.txt')}"\noutput = "${written}"\n`,
    );
    const curl = (await client().listTools()).tools.find((tool) => tool.name === 'curl') as unknown as {
      inputSchema: { properties: Record<string, unknown> };
    };
    for (const name of ['config', 'engine', 'abstract-unix-socket'])
      expect(curl.inputSchema.properties[name], name).toBeUndefined();
    const refused = await client().callTool('curl', { config: 'evil.cfg' });
    expect(refused.isError).toBe(true);
    expect(existsSync(written)).toBe(false);
  });

  it('reads a file:// URL inside the roots, and none outside them', async () => {
    const inside = await client().callTool('curl', { args: [`file://${join(work, 'page.txt')}`] });
    expect(clientStdout(inside)).toBe('inside the root\n');
    const secret = join(outside, 'secret.txt');
    writeFileSync(secret, 'secret\n');
    const away = await client().callTool('curl', { args: [`file://${secret}`] });
    expect(away.isError).toBe(true);
    expect(clientText(away)).not.toContain('secret\n');
  });
});
