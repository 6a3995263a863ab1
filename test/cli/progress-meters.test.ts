// Without a terminal, curl writes its progress meter and wget a line of dots per 50 KB to stderr,
// which a tool result returns as output: the model read a table of transfer speeds beside every
// body, and 60 lines of dots buried wget's log. Both run without them; errors still come. The real
// programs, through the built bridge (v2 client over stdio), against an HTTP server on 127.0.0.1.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientText, serveCliForTests } from './helpers.js';

const BODY = 'x'.repeat(1023).concat('\n').repeat(1024); // 1 MiB: 20 lines of wget's dots
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/file.txt') response.writeHead(200, { 'content-type': 'text/plain' }).end(BODY);
    else response.writeHead(404).end('no such file\n');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const curl = serveCliForTests('curl', 'v2', 'stdio');
const wget = serveCliForTests('wget', 'v2', 'stdio');

type Structured = { stdout: string; stderr: string; exitCode: number | null };
const structured = (result: Record<string, unknown>) => result.structuredContent as Structured;

async function properties(client: ReturnType<typeof curl.client>, name: string): Promise<string[]> {
  const tool = (await client.listTools()).tools.find((entry) => entry.name === name);
  return Object.keys((tool?.inputSchema as { properties?: object } | undefined)?.properties ?? {});
}

describe('progress meters', () => {
  it('curl returns the body with nothing on stderr, and still says why a call failed', async () => {
    const got = await curl.client().callTool('curl', { args: [`${base}/file.txt`] });
    expect(got.isError, clientText(got)).toBeFalsy();
    expect(structured(got).stderr).toBe('');
    expect(clientText(got)).not.toMatch(/% Total|Dload/);
    const missing = await curl.client().callTool('curl', { fail: true, args: [`${base}/missing`] });
    expect(missing.isError).toBe(true);
    expect(structured(missing).stderr).toMatch(/^curl: \(22\) The requested URL returned error: 404\n$/);
    // The bar (-#) and the switch already on are not offered.
    const offered = await properties(curl.client(), 'curl');
    expect(offered).not.toContain('no-progress-meter');
    expect(offered).not.toContain('progress-bar');
    expect(offered).toContain('silent');
  });

  it('wget returns the body with its log on stderr but no progress dots, and still says why a call failed', async () => {
    const got = await wget.client().callTool('wget', { args: [`${base}/file.txt`] });
    expect(got.isError, clientText(got)).toBeFalsy();
    expect(structured(got).stdout.length).toBeGreaterThan(0);
    const log = structured(got).stderr;
    expect(log).toContain('HTTP request sent, awaiting response... 200 OK');
    expect(log).not.toMatch(/\.{10} \.{10}|\b0K\b/);
    expect(log.split('\n').length).toBeLessThan(12);
    const missing = await wget.client().callTool('wget', { args: [`${base}/missing`] });
    expect(missing.isError).toBe(true);
    expect(structured(missing).stderr).toContain('ERROR 404: Not Found.');
    const offered = await properties(wget.client(), 'wget');
    expect(offered).not.toContain('show-progress');
    expect(offered).not.toContain('progress');
  });
});
