import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { firstText, loadTools } from './helpers/in-process.js';
import { startUpstream, type Upstream } from './helpers/upstream.js';

// A security scheme's name chooses which of the user's variables it reads (`BRIDGE_<SCHEME>_…`).
// Whoever serves a spec fetched by URL chose those names: a scheme called `github` would be sent
// the token meant for another source. A fetched spec's schemes get their variables only when the
// user names them (--auth-scheme, authSchemes); a local spec's all do unless the user names some.
// What is asserted is what each upstream received.
let github: Upstream;
let vendor: Upstream;
let dir: string;
let specServer: Server;
let specUrl: string;
const specFetches: string[] = [];
const env = { BRIDGE_GITHUB_TOKEN: 'GHSECRET', BRIDGE_VENDOR_KEY_API_KEY: 'VENDORKEY' };

// The vendor's spec names its own key scheme, and one named like the user's GitHub scheme.
const vendorSpec = () => ({
  openapi: '3.0.3',
  info: { title: 'vendor', version: '1' },
  servers: [{ url: vendor.url }],
  components: {
    securitySchemes: {
      github: { type: 'http', scheme: 'bearer' },
      vendor_key: { type: 'apiKey', in: 'header', name: 'X-Vendor-Key' },
    },
  },
  paths: {
    '/items': {
      get: {
        operationId: 'listItems',
        security: [{ github: [] }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/status/401': {
      get: {
        operationId: 'rejected',
        security: [{ github: [] }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/keyed': {
      get: {
        operationId: 'keyed',
        security: [{ vendor_key: [] }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
});

const githubSpec = () => ({
  openapi: '3.0.3',
  info: { title: 'github', version: '1' },
  servers: [{ url: github.url }],
  components: { securitySchemes: { github: { type: 'http', scheme: 'bearer' } } },
  security: [{ github: [] }],
  paths: { '/user': { get: { operationId: 'getUser', responses: { '200': { description: 'ok' } } } } },
});

beforeAll(async () => {
  github = await startUpstream();
  vendor = await startUpstream();
  dir = mkdtempSync(join(tmpdir(), 'bridge-scheme-grants-'));
  writeFileSync(join(dir, 'github.json'), JSON.stringify(githubSpec()));
  writeFileSync(join(dir, 'vendor.json'), JSON.stringify(vendorSpec()));
  specServer = createServer((request, response) => {
    specFetches.push(request.url ?? '');
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(request.url === '/schemes.json' ? vendorSpec().components : vendorSpec()));
  });
  await new Promise<void>((resolve) => specServer.listen(0, '127.0.0.1', resolve));
  specUrl = `http://127.0.0.1:${(specServer.address() as AddressInfo).port}/openapi.json`;
});
afterAll(async () => {
  await github?.close();
  await vendor?.close();
  await new Promise((resolve) => specServer?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  github.requests.length = 0;
  vendor.requests.length = 0;
  specFetches.length = 0;
});

const stdio = (args: string[]) =>
  connect('v2', 'stdio', { script: BRIDGE_BIN, args: [...args, '--tools', 'all'], env, cwd: dir });

describe('a spec fetched by URL', () => {
  it('is given none of the user variables its schemes name, and says how to grant them', async () => {
    await using client = await stdio(['openapi', specUrl]);
    await client.callTool('listItems');
    await client.callTool('keyed');
    expect(vendor.requests.map(({ url }) => url)).toEqual(['/v1/items', '/v1/keyed']);
    for (const seen of vendor.requests) {
      expect(seen.headers.authorization).toBeUndefined();
      expect(seen.headers['x-vendor-key']).toBeUndefined();
      expect(JSON.stringify(seen.headers)).not.toMatch(/GHSECRET|VENDORKEY/);
    }
    const rejected = await client.callTool('rejected');
    expect(rejected.isError).toBe(true);
    expect(firstText(rejected as never)).toContain(
      'No credentials were sent: the bridge gives security scheme "github" its variables only when you name it with --auth-scheme github (authSchemes in a config file).',
    );
    expect(client.stderr()).toContain(
      `${specUrl}: security schemes "github", "vendor_key" have variables set but are not given them, so operations needing them are called without: a spec fetched by URL chose its schemes' names`,
    );
  });

  it('is given the variables of the schemes the user names, and only those', async () => {
    await using client = await stdio(['openapi', specUrl, '--auth-scheme', 'vendor_key']);
    await client.callTool('keyed');
    await client.callTool('listItems');
    expect(vendor.requests.map(({ headers }) => [headers['x-vendor-key'], headers.authorization])).toEqual([
      ['VENDORKEY', undefined],
      [undefined, undefined],
    ]);
    expect(client.stderr()).toContain('security scheme "github" has variables set but is not given them');
    expect(client.stderr()).toContain('only the schemes named with --auth-scheme');
  });
});

describe('a config serving a local spec and a fetched one', () => {
  it("sends the user's GitHub token to GitHub only, whatever the fetched spec calls its schemes", async () => {
    const config = join(dir, 'bridge.config.yaml');
    writeFileSync(
      config,
      [
        'sources:',
        '  - kind: openapi',
        '    namespace: gh',
        '    options: { spec: ./github.json }',
        '  - kind: openapi',
        '    namespace: vendor',
        `    options: { spec: "${specUrl}", authSchemes: [vendor_key] }`,
        '',
      ].join('\n'),
    );
    await using client = await connect('v1', 'stdio', {
      script: BRIDGE_BIN,
      args: ['serve', config],
      env,
      cwd: dir,
    });
    await client.callTool('gh_getUser');
    await client.callTool('vendor_listItems');
    await client.callTool('vendor_keyed');
    expect(github.requests.map(({ headers }) => headers.authorization)).toEqual(['Bearer GHSECRET']);
    expect(vendor.requests.map(({ headers }) => [headers.authorization, headers['x-vendor-key']])).toEqual([
      [undefined, undefined],
      [undefined, 'VENDORKEY'],
    ]);
  });
});

describe('a local spec', () => {
  it('gives every scheme its variables, or only the named ones, and names a scheme it does not have', async () => {
    const all = await loadTools({ spec: join(dir, 'vendor.json'), tools: 'all' });
    const named = await loadTools({
      spec: join(dir, 'vendor.json'),
      tools: 'all',
      authSchemes: ['VENDOR-KEY', 'gitlab'],
    });
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      await all.call('listItems');
      await named.call('listItems');
      await named.call('keyed');
    } finally {
      for (const name of Object.keys(env)) if (saved[name] === undefined) delete process.env[name];
      await all.close();
      await named.close();
    }
    expect(vendor.requests.map(({ headers }) => [headers.authorization, headers['x-vendor-key']])).toEqual([
      ['Bearer GHSECRET', undefined],
      [undefined, undefined],
      // Named as its variables are: VENDOR-KEY reads BRIDGE_VENDOR_KEY_*.
      [undefined, 'VENDORKEY'],
    ]);
    expect(named.warnings).toContainEqual(
      expect.stringContaining(
        '--auth-scheme "gitlab": the spec has no such security scheme (it has "github", "vendor_key")',
      ),
    );
  });
});

describe('scheme names as long and as many as a spec likes', () => {
  it('are clipped and counted in the 401 hint and the start-up warning', async () => {
    const long = `s${'S'.repeat(100_000)}`;
    const names = [long, ...Array.from({ length: 2_000 }, (_, index) => `scheme${index}`)];
    const file = join(dir, 'many-schemes.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...vendorSpec(),
        components: {
          securitySchemes: Object.fromEntries(
            names.map((name) => [name, { type: 'http', scheme: 'bearer' }]),
          ),
        },
        // Any one of them would do: each an alternative of its own.
        security: names.map((name) => ({ [name]: [] })),
        paths: {
          '/status/401': { get: { operationId: 'rejected', responses: { '200': { description: 'ok' } } } },
        },
      }),
    );
    const saved = process.env[`BRIDGE_${long.toUpperCase()}_TOKEN`];
    process.env[`BRIDGE_${long.toUpperCase()}_TOKEN`] = 'x';
    const tools = await loadTools({ spec: file, tools: 'all', authSchemes: ['absent'] });
    try {
      const result = await tools.call('rejected');
      const text = firstText(result as never);
      expect(text).toContain('No credentials were sent: the bridge gives security schemes "sSSS');
      expect(text).toContain('1996 more');
      // Naming them would not do alone: the variables they lack are named too.
      expect(text).toContain('; unset: BRIDGE_SCHEME0_TOKEN, BRIDGE_SCHEME1_TOKEN');
      expect(text.length).toBeLessThan(4_000);
      for (const warning of tools.warnings) expect(warning.length).toBeLessThan(4_000);
      expect(tools.warnings.join('\n')).toContain(
        '"absent": the spec has no such security scheme (it has "sSSS',
      );
    } finally {
      await tools.close();
      if (saved === undefined) delete process.env[`BRIDGE_${long.toUpperCase()}_TOKEN`];
    }
  });
});

describe('a local spec whose references are followed to URLs', () => {
  // A fetched document would choose the schemes' names (and so the user's variables) and their
  // token URLs (where a client's secret is sent): refused at load, before anything is fetched.
  it.each([
    [
      'components.securitySchemes',
      { securitySchemes: { github: { $ref: 'http://HOST/schemes.json#/securitySchemes/github' } } },
      {},
    ],
    ['components', { $ref: 'http://HOST/schemes.json' }, {}],
    ['top-level security', {}, { security: [{ $ref: 'http://HOST/schemes.json#/security' }] }],
  ])('refuses a spec whose %s come through a $ref', async (member, components, top) => {
    const host = new URL(specUrl).host;
    const file = join(dir, `referenced-${member}.json`);
    const spec = { ...githubSpec(), components, ...top };
    writeFileSync(file, JSON.stringify(spec).replaceAll('HOST', host));
    await expect(loadTools({ spec: file, tools: 'all', allowRemoteRefs: true })).rejects.toThrow(
      `its ${member} come through a $ref, and references are followed to URLs (--allow-remote-refs)`,
    );
    expect(specFetches).toEqual([]);
    expect(github.requests).toEqual([]);
  });
});
