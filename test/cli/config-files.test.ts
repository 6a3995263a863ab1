import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientStdout, clientText, serveCliForTests } from './helpers.js';

// A config file sets options where no argument check sees them: curl's -K can name an output file
// anywhere, as OpenSSL's -config and GnuPG's --options can load code; and curl reads request
// bodies and headers from files (`-d @file`, `-F f=@file`), which are paths confined to the roots.
// The real curl, v2 over HTTP, sending to a real local server that records what reaches it.
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

describe('curl reading a request body or header from a file', () => {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      bodies.push(`${JSON.stringify(req.headers)}\n${body}`);
      res.end('ok');
    });
  });
  let url = '';
  beforeAll(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => {
    server.close();
  });

  it('is refused, so no file outside the roots reaches the server', async () => {
    const secret = join(outside, 'secret.txt');
    writeFileSync(secret, 'the-secret-text');
    const attempts: Array<Record<string, unknown>> = [
      { data: `@${secret}` },
      { 'data-binary': `@${secret}` },
      { form: `f=@${secret}` },
      { form: `f=<${secret}` },
      { header: `@${secret}` },
      { 'data-urlencode': `f@${secret}` },
    ];
    for (const attempt of attempts) {
      const result = await client().callTool('curl', { ...attempt, args: [url] });
      expect(result.isError, JSON.stringify(attempt)).toBe(true);
    }
    const cookie = await client().callTool('curl', { cookie: secret, args: [url] });
    expect(cookie.isError).toBe(true);
    expect(bodies.join('\n')).not.toContain('the-secret-text');
    // Plain data still goes, and so does a file inside the roots: the refusals were the paths.
    const sent = await client().callTool('curl', { data: 'a=1', args: [url] });
    expect(sent.isError, clientText(sent)).toBeFalsy();
    expect(bodies.at(-1)).toContain('a=1');
    const inside = await client().callTool('curl', { 'data-binary': '@page.txt', args: [url] });
    expect(inside.isError, clientText(inside)).toBeFalsy();
    expect(bodies.at(-1)).toContain('inside the root');
  });
});
