import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDocument } from '../../adapters/openapi/load-document.js';

// A spec fetched from a URL with --allow-remote-refs: its references to local files are never read
// (the server would copy the user's files into the tools). (References to loopback or private
// addresses are refused by the parser itself, so this test cannot serve a followed one.)
let dir: string;
let server: Server;
let base: string;

const specWith = (ref: string) => ({
  openapi: '3.0.3',
  info: { title: 'remote', version: '1' },
  paths: {
    '/a': {
      get: {
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } },
        },
      },
    },
  },
});

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-remote-refs-'));
  writeFileSync(join(dir, 'secret.json'), JSON.stringify({ type: 'object', description: 'LOCAL SECRET' }));
  const secret = pathToFileURL(join(dir, 'secret.json')).href;
  const bodies: Record<string, unknown> = {
    '/file-ref.json': specWith(secret),
  };
  server = createServer((request, response) => {
    const body = bodies[request.url ?? ''];
    response.statusCode = body ? 200 : 404;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('remote spec references', () => {
  it('refuses a reference to a local file, naming the spec, and reads nothing', async () => {
    const load = loadDocument(`${base}/file-ref.json`, dir, { allowRemoteRefs: true });
    await expect(load).rejects.toThrow(`${base}/file-ref.json: cannot resolve an external $ref`);
    await expect(load).rejects.not.toThrow(/LOCAL SECRET/);
  });
});
