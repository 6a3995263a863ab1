import { lookup } from 'node:dns/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDocument } from '../../adapters/openapi/load-document.js';
import { isPublicAddress } from '../../adapters/openapi/public-address.js';

// With --allow-remote-refs, references by URL are followed to public addresses only: never to this
// machine or its network, whatever name the URL gives (a name resolving to 127.0.0.1 included),
// and a spec fetched from a URL never reads local files (it would copy the user's files into the
// tools). Every server here is local, so what this file serves is what must be refused; the
// fetching itself (redirects, size, deadline) is tested in fetch-remote-ref.test.ts.
let dir: string;
let server: Server;
let base: string;
let port: number;
/** The paths the local server was asked for: a refused reference must not reach it at all. */
let requested: string[];

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
    // Documents a local spec references: each points back at the user's disk in its own way.
    '/schemas/by-file-url.json': { type: 'object', properties: { a: { $ref: secret } } },
    '/schemas/by-path.json': { type: 'object', properties: { a: { $ref: join(dir, 'secret.json') } } },
    '/schemas/relative.json': { type: 'object', properties: { a: { $ref: 'secret.json' } } },
    '/schemas/by-id.json': {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { $id: pathToFileURL(`${dir}/`).href, $ref: 'secret.json' } },
    },
  };
  requested = [];
  server = createServer((request, response) => {
    requested.push(request.url ?? '');
    const body = bodies[request.url ?? ''] ?? { type: 'object', description: 'INTERNAL ONLY' };
    response.statusCode = body ? 200 : 404;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(body ?? {}));
  });
  // Every local address: a name the machine resolves to its own network address reaches it too.
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
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

  it('refuses a reference by a name that resolves to this machine, and sends it nothing', async (context) => {
    const name = await localName();
    // Machines name themselves in /etc/hosts (Debian: 127.0.1.1; containers: their own address).
    if (!name) return context.skip();
    const spec = join(dir, 'spec.json');
    writeFileSync(spec, JSON.stringify(specWith(`http://${name.host}:${port}/meta.json`)));
    const load = loadDocument(spec, dir, { allowRemoteRefs: true });
    await expect(load).rejects.toThrow(
      `cannot fetch http://${name.host}:${port}/meta.json: ${name.host} resolves to ${name.address}, not a public address`,
    );
    expect(requested).toEqual([]);
  });

  it.each([
    ['an IPv4-mapped IPv6 address', (p: number) => `http://[::ffff:127.0.0.1]:${p}/meta.json`],
    ['a loopback address as one number', (p: number) => `http://2130706433:${p}/meta.json`],
    ['a private address', (p: number) => `http://10.0.0.1:${p}/meta.json`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('refuses a reference to %s', async (_, url) => {
    const spec = join(dir, 'spec.json');
    writeFileSync(spec, JSON.stringify(specWith(url(port))));
    const load = loadDocument(spec, dir, { allowRemoteRefs: true });
    await expect(load).rejects.toThrow(/cannot resolve an external \$ref: cannot fetch http/);
    expect(requested).toEqual([]);
  });
});

// A local spec with --allow-remote-refs: the documents it fetches are the servers' own, and
// whatever they reference is fetched too, but never read from the user's disk. The local server
// stands in for a public one (the address check is widened for it alone).
describe('references of a fetched document', () => {
  const load = (ref: string) => {
    const spec = join(dir, 'spec.json');
    writeFileSync(spec, JSON.stringify(specWith(`${base}${ref}`)));
    return loadDocument(spec, dir, {
      allowRemoteRefs: true,
      remoteRefPolicy: { allowAddress: (address) => address === '127.0.0.1', allowUrl: () => true },
    });
  };

  it('refuses a file: URL, naming the document and the reference', async () => {
    const loading = load('/schemas/by-file-url.json');
    await expect(loading).rejects.toThrow(
      `${base}/schemas/by-file-url.json references the local file ${pathToFileURL(join(dir, 'secret.json')).href}: a document fetched by URL never makes the bridge read local files`,
    );
    await expect(loading).rejects.not.toThrow(/LOCAL SECRET/);
  });

  it('refuses an $id that moves its references onto the local disk', async () => {
    const loading = load('/schemas/by-id.json');
    await expect(loading).rejects.toThrow('references the local file secret.json');
    await expect(loading).rejects.not.toThrow(/LOCAL SECRET/);
  });

  it.each([
    ['a relative reference', '/schemas/relative.json', () => '/schemas/secret.json'],
    ['an absolute path', '/schemas/by-path.json', () => join(dir, 'secret.json')],
  ])("resolves %s against the document's URL: fetched, not read from disk", async (_, ref, fetched) => {
    const loaded = await load(ref);
    const text = JSON.stringify(loaded.document);
    expect(text).toContain('INTERNAL ONLY');
    expect(text).not.toContain('LOCAL SECRET');
    expect(requested).toEqual([ref, fetched()]);
    // Only the spec itself is a local file to watch.
    expect(loaded.files).toEqual([join(dir, 'spec.json')]);
  });
});

// A name of this machine (its host name, as /etc/hosts usually has it) and the non-public address
// it resolves to; undefined where it resolves to nothing local.
async function localName(): Promise<{ host: string; address: string } | undefined> {
  for (const host of [hostname()]) {
    try {
      const { address } = await lookup(host, { family: 4 });
      if (!isPublicAddress(address)) return { host, address };
    } catch {}
  }
  return undefined;
}
