import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientStdout, serveCliForTests } from './helpers.js';

// GnuPG reads an options file that can name programs it runs (photo-viewer, exec-path), as
// OpenSSL's -config can: its overlay offers neither that nor secret keys and pass phrases. The
// real gpg with a keyring of its own in the root, over a v2 client on HTTP.
const { client } = serveCliForTests('gpg', 'v2', 'http', {
  // A keyring of its own: nothing of the user's ~/.gnupg is read or made.
  env: (root) => ({ GNUPGHOME: join(root, 'gnupg') }),
  prepare: (root) => {
    mkdirSync(join(root, 'gnupg'), { mode: 0o700 });
    writeFileSync(join(root, 'notes.txt'), 'hello\n');
    writeFileSync(join(root, 'evil.conf'), `photo-viewer "touch ${join(root, 'ran')}"\n`);
  },
});

describe('gpg', () => {
  it('offers no options file, server or interactive mode, and no pass phrase', async () => {
    const gpg = (await client().listTools()).tools.find((tool) => tool.name === 'gpg') as unknown as {
      description: string;
      inputSchema: { properties: Record<string, unknown> };
    };
    const properties = gpg.inputSchema.properties;
    for (const name of ['options', 'server', 'edit-key', 'change-passphrase'])
      expect(properties[name], name).toBeUndefined();
    expect(gpg.description).toContain('Not offered for safety');
    expect(properties['print-md']).toBeDefined();
    const refused = await client().callTool('gpg', { options: 'evil.conf', args: ['--list-keys'] });
    expect(refused.isError).toBe(true);
  });

  it('hashes a file in the root', async () => {
    const result = await client().callTool('gpg', {
      'print-md': true,
      args: ['SHA256', 'notes.txt'],
    });
    expect(result.isError).toBeFalsy();
    expect(clientStdout(result).replace(/\s/g, '')).toContain(
      '5891B5B522D5DF086D0FF0B110FBD9D21BB4FC7163AF34D08286A2E846F6BE03',
    );
  });
});
