// A server curl talks to chooses where a redirect leads: with the protocols of redirects widened
// (`--proto-redir =all`, `+file`), a 302 to file:///… reads any file and a 307 after an upload
// writes one, where no argument named them. The real curl through the built bridge (v1 client on
// stdio) against a local server; checked on the outside directory and the answers.
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveCliForTests, clientText as text } from '../cli/helpers.js';
import { processesUnder, snapshot } from './world.js';

const { work, outside, client } = serveCliForTests('curl', 'v1', 'stdio', {
  prepare: (root) => writeFileSync(join(root, 'upload.txt'), 'planted by a redirect\n'),
});
const SECRET = `TOP-SECRET-${process.pid}`;
writeFileSync(join(outside, 'secret.txt'), `${SECRET}\n`);
const planted = join(outside, 'planted');

// GET is sent to the secret, an upload (PUT) to a file to create.
const server = createServer((req, res) => {
  const target = req.method === 'GET' ? join(outside, 'secret.txt') : planted;
  res.writeHead(req.method === 'GET' ? 302 : 307, { location: `file://${target}` });
  res.end();
});
let url = '';
beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
});
afterAll(() => {
  server.close();
});

describe('curl following a redirect to a file: URL', () => {
  const before = snapshot(outside);
  const answers: string[] = [];

  it('does not offer --proto-redir, so neither the read nor the write happens', async () => {
    for (const widened of ['=all', '+file', 'all']) {
      const read = await client().callTool('curl', { location: true, 'proto-redir': widened, args: [url] });
      answers.push(JSON.stringify(read));
      const written = await client().callTool('curl', {
        location: true,
        'proto-redir': widened,
        'upload-file': 'upload.txt',
        args: [url],
      });
      answers.push(JSON.stringify(written));
      expect(answers.join('\n')).not.toContain(SECRET);
      expect(snapshot(outside)).toEqual(before);
      for (const result of [read, written]) expect(text(result)).toContain('Invalid arguments');
    }
    const tools = (await client().listTools()).tools;
    const curl = tools.find((tool) => tool.name === 'curl') as unknown as {
      inputSchema: { properties: Record<string, unknown> };
    };
    expect(curl.inputSchema.properties['proto-redir']).toBeUndefined();
  });

  it('follows no redirect to file: with the options it still offers (--proto, --location-trusted)', async () => {
    for (const args of [
      { location: true, proto: '=all' },
      { location: true, proto: '+file' },
      { 'location-trusted': true },
      { 'location-trusted': true, 'upload-file': 'upload.txt' },
    ]) {
      const result = await client().callTool('curl', { ...args, args: [url] });
      answers.push(JSON.stringify(result));
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(text(result)).toMatch(/Protocol "?file"? (not supported|disabled)/);
    }
  });

  // curl 8.3 and later write what follows `%output{FILE}` in --write-out into FILE.
  it('refuses a --write-out that names a file to write (%output{…})', async () => {
    for (const format of [`%output{${planted}}x`, `%output{>>${planted}}x`, `a%OUTPUT{${planted}}`]) {
      const result = await client().callTool('curl', { 'write-out': format, args: [url] });
      answers.push(JSON.stringify(result));
      expect(result.isError, format).toBe(true);
      expect(text(result), format).toContain('%output');
    }
    // Nor read from a file inside the roots, where the value holds no %output{ to refuse.
    writeFileSync(join(work, 'format.txt'), `%output{${planted}}x`);
    const fromFile = await client().callTool('curl', { 'write-out': '@format.txt', args: [url] });
    answers.push(JSON.stringify(fromFile));
    expect(fromFile.isError).toBe(true);
    expect(text(fromFile)).toContain('Invalid arguments');
  });

  it('left the world as it was: no secret in any answer, nothing written outside, no process', async () => {
    for (const answer of answers) expect(answer).not.toContain(SECRET);
    expect(snapshot(outside)).toEqual(before);
    await expect.poll(() => processesUnder(work), { timeout: 5_000 }).toEqual([]);
  });
});
