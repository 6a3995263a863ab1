import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

// GitHub answers a used-up rate limit with 403 and says in its headers until when (and a secondary
// limit with 403 and Retry-After): the error result says so, where it used to read like any 403.

const RESET = 1_900_000_000; // 2030-03-17T17:46:40Z

let dir: string;
let server: ReturnType<typeof createServer>;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-rate-limit-'));
  server = createServer((req, res) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (req.url?.endsWith('/primary')) {
      Object.assign(headers, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(RESET) });
    } else if (req.url?.endsWith('/secondary')) {
      headers['retry-after'] = '60';
    } else if (req.url?.endsWith('/absurd')) {
      Object.assign(headers, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1e300' });
    } else if (req.url?.endsWith('/draft')) {
      Object.assign(headers, { 'ratelimit-remaining': '0', 'ratelimit-reset': '30' });
    }
    res.writeHead(403, headers);
    res.end(JSON.stringify({ message: 'API rate limit exceeded' }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function errorText(path: string, security = false): Promise<string> {
  const spec = join(dir, `spec-${path}-${security}.json`);
  writeFileSync(
    spec,
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'limited', version: '1' },
      ...(security
        ? {
            components: { securitySchemes: { token: { type: 'http', scheme: 'bearer' } } },
            security: [{ token: [] }],
          }
        : {}),
      paths: { [`/${path}`]: { get: { operationId: 'get', responses: { '200': { description: 'ok' } } } } },
    }),
  );
  await using client = await connect('v1', 'stdio', {
    script: BRIDGE_BIN,
    args: ['openapi', spec, '--base-url', base, '--no-cache'],
  });
  const result = await client.callTool('get', {});
  expect(result.isError).toBe(true);
  return String(result.content[0]?.text);
}

describe('an upstream rate limit in the error result', () => {
  it('says until when a used-up limit lasts (x-ratelimit-reset, epoch seconds)', async () => {
    const text = await errorText('primary');
    expect(text).toContain(
      `The API's rate limit is used up until 2030-03-17T17:46:40.000Z (x-ratelimit-reset: ${RESET}); calls before then fail the same way.`,
    );
    expect(text).not.toContain('fix the request');
  });

  it('reads the IETF draft headers too (ratelimit-reset, seconds from now)', async () => {
    expect(await errorText('draft')).toMatch(
      /rate limit is used up until \d{4}-\d\d-\d\dT[\d:.]+Z \(ratelimit-reset: 30\)/,
    );
  });

  it('ignores a reset time no date can hold, and still answers the 403', async () => {
    const text = await errorText('absurd');
    expect(text).toContain('HTTP 403');
    expect(text).not.toContain('rate limit is used up');
    expect(text).toContain('API rate limit exceeded');
  });

  it('passes on a Retry-After on a 403 (GitHub secondary limits)', async () => {
    expect(await errorText('secondary')).toContain('The upstream asks to retry later (Retry-After: 60).');
  });

  it('still says when no credentials were sent, beside the limit', async () => {
    const text = await errorText('primary', true);
    expect(text).toContain("The API's rate limit is used up until");
    expect(text).toMatch(/No credentials were sent: set \S+ in the bridge's environment\./);
  });
});
