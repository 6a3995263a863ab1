import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCliForTests, clientText as text } from './helpers.js';

// OpenSSL as users run it: `openssl help` prints a bare grid of names, so its overlay names the
// commands; each command's options are single-dash long ones (`-in infile`, `-CAfile infile`,
// `-passin val`). A real openssl, over a real v2 client on stdio.
const { work, outside, client } = serveCliForTests('openssl', 'v2', 'stdio', {
  env: { BRIDGE_TEST_SECRET: 'not-for-callers' },
});

describe('openssl', () => {
  it("offers the overlay's commands with their single-dash options typed, and no engine or provider", async () => {
    const tools = (await client().listTools()).tools;
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['openssl_x509', 'openssl_req', 'openssl_verify', 'openssl_dgst']),
    );
    expect(names).not.toContain('openssl_s_server');
    const x509 = tools.find((tool) => tool.name === 'openssl_x509') as unknown as {
      inputSchema: { properties: Record<string, { type?: string; 'x-path'?: string }> };
      annotations?: Record<string, boolean>;
    };
    const properties = x509.inputSchema.properties;
    expect(properties.in).toMatchObject({ type: 'string', 'x-path': 'path' });
    expect(properties.CAfile ?? properties.CA).toMatchObject({ 'x-path': 'path' });
    expect(properties.noout).toMatchObject({ type: 'boolean' });
    expect(properties.days).toMatchObject({ type: 'integer' });
    // Shared libraries OpenSSL would load and run; a config file can name more.
    for (const name of ['engine', 'provider', 'provider-path']) expect(properties[name]).toBeUndefined();
    // A pass phrase source is not a file, nor an input format.
    expect(properties.passin?.['x-path']).toBeUndefined();
    expect(properties.inform?.['x-path']).toBeUndefined();
    const verify = tools.find((tool) => tool.name === 'openssl_verify');
    expect(verify?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it('makes a key and a self-signed certificate in the root, and reads them back', async () => {
    const made = await client().callTool('openssl_req', {
      x509: true,
      newkey: 'ec',
      pkeyopt: 'ec_paramgen_curve:P-256',
      noenc: true,
      subj: '/CN=bridge.test',
      days: 2,
      keyout: 'key.pem',
      out: 'cert.pem',
    });
    expect(made.isError, text(made)).toBeFalsy();
    expect(readFileSync(join(work, 'cert.pem'), 'utf8')).toContain('BEGIN CERTIFICATE');
    expect(existsSync(join(work, 'key.pem'))).toBe(true);

    const read = await client().callTool('openssl_x509', {
      in: 'cert.pem',
      noout: true,
      subject: true,
      dates: true,
    });
    expect(read.isError, text(read)).toBeFalsy();
    expect(text(read)).toMatch(/subject=CN\s*=\s*bridge\.test/);
    expect(text(read)).toContain('notAfter=');

    const verified = await client().callTool('openssl_verify', { CAfile: 'cert.pem', args: ['cert.pem'] });
    expect(text(verified)).toContain('cert.pem: OK');
  });

  it('refuses files outside the roots, and pass phrase sources that read the environment or files', async () => {
    const secret = join(outside, 'secret.pem');
    writeFileSync(secret, 'not a certificate');
    const read = await client().callTool('openssl_x509', { in: secret, noout: true, text: true });
    expect(read.isError).toBe(true);
    expect(text(read)).toContain('outside');

    const written = join(outside, 'digest.txt');
    writeFileSync(join(work, 'data.txt'), 'hello');
    const digest = await client().callTool('openssl_dgst', {
      sha256: true,
      out: written,
      args: ['data.txt'],
    });
    expect(digest.isError).toBe(true);
    expect(existsSync(written)).toBe(false);

    for (const source of ['env:BRIDGE_TEST_SECRET', 'file:/etc/hostname', 'fd:0']) {
      const refused = await client().callTool('openssl_pkey', { in: 'key.pem', passin: source, noout: true });
      expect(refused.isError, source).toBe(true);
      expect(text(refused)).toContain('refused');
    }

    // A key's parameters read from a file wherever it is (`param:FILE`, `<alg>:FILE`): only an
    // algorithm, or one with a key size, is taken. Asserted on the world: no key is made from them.
    execFileSync('openssl', ['ecparam', '-name', 'secp384r1', '-out', join(outside, 'params.pem')]);
    for (const newkey of [`param:${join(outside, 'params.pem')}`, `ec:${join(outside, 'params.pem')}`]) {
      const made = await client().callTool('openssl_req', {
        x509: true,
        newkey,
        noenc: true,
        subj: '/CN=outside.test',
        keyout: 'outside-key.pem',
        out: 'outside-cert.pem',
      });
      expect(made.isError, newkey).toBe(true);
      expect(text(made)).toContain('newkey');
      expect(existsSync(join(work, 'outside-key.pem'))).toBe(false);
    }
    // `-rand a:b` reads each file of a `:` list: not offered.
    const req = (await client().listTools()).tools.find((tool) => tool.name === 'openssl_req') as unknown as {
      inputSchema: { properties: Record<string, unknown> };
    };
    expect(req.inputSchema.properties.newkey).toBeDefined();
    expect(req.inputSchema.properties.rand).toBeUndefined();

    // The same tool with what is allowed still runs: the refusals above were the arguments'.
    const hashed = await client().callTool('openssl_dgst', {
      sha256: true,
      out: 'digest.txt',
      args: ['data.txt'],
    });
    expect(hashed.isError, text(hashed)).toBeFalsy();
    expect(readFileSync(join(work, 'digest.txt'), 'utf8')).toContain(
      '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
    );
  });
});
