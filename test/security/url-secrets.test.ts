// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config's literal ${VAR} syntax
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayUrl } from '../../src/index.js';
import { tempDir, writeYaml } from '../config/helpers.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';

// A key in a source's URL (`endpoint: …/graphql?api_key=${GQL_KEY}`, a spec URL with a token) is
// sent to the upstream, and nowhere else: not in results the model reads, not in the log, not in
// the environment of the commands the bridge runs.
const GQL_KEY = 'gql-secret-7f3a';
const SPEC_KEY = 'spec-secret-91bc';
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Echo', version: '1.0.0' },
  paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'OK' } } } } },
};

let upstream: ReturnType<typeof createServer>;
let base: string;
const seen: string[] = [];
let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  // The spec at /spec.json; the GraphQL endpoint answers a proxy's error page, which names it.
  upstream = createServer((req, res) => {
    seen.push(String(req.url));
    if (req.url?.startsWith('/spec.json')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(SPEC));
      return;
    }
    req.resume();
    res.writeHead(502, { 'content-type': 'text/plain' }).end('Bad Gateway');
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  dir = await tempDir();
  await writeFile(dir.file('schema.graphql'), 'type Query { ping: String }');
  await writeYaml(dir.file('bridge.yaml'), {
    sources: [
      {
        kind: 'graphql',
        namespace: 'gql',
        options: { endpoint: `${base}/graphql?api_key=\${GQL_KEY}`, schema: './schema.graphql' },
      },
      {
        kind: 'openapi',
        namespace: 'rest',
        options: { spec: `${base}/spec.json?token=\${SPEC_KEY}`, baseUrl: base },
      },
      { kind: 'cli', options: { program: 'jq' } },
    ],
  });
});
afterAll(async () => {
  upstream?.closeAllConnections();
  upstream?.close();
  await dir?.[Symbol.asyncDispose]();
});

describe('a credential in a source URL', () => {
  it('reaches the upstream only: not the results, the log or the commands', async () => {
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['serve', dir.file('bridge.yaml'), '--log-level', 'debug'],
      env: { GQL_KEY, SPEC_KEY },
    });
    const failed = await modernRequest(bridge.url, 'tools/call', { name: 'gql_ping', arguments: {} });
    expect(failed.json?.result?.isError, failed.text).toBe(true);
    expect(failed.text).toContain(`the GraphQL endpoint ${base}/graphql?api_key=… answered HTTP 502`);
    // The upstream got the keys: the URLs work.
    expect(seen).toEqual(
      expect.arrayContaining([`/spec.json?token=${SPEC_KEY}`, `/graphql?api_key=${GQL_KEY}`]),
    );

    const env = await modernRequest(bridge.url, 'tools/call', {
      name: 'jq',
      arguments: { filter: '[$ENV.GQL_KEY, $ENV.SPEC_KEY]', n: true, c: true },
    });
    expect(env.json?.result?.isError, env.text).toBeFalsy();
    expect(env.json?.result?.structuredContent).toMatchObject({ stdout: '[null,null]\n' });

    expect(bridge.stderr()).toContain(`graphql ${base}/graphql?api_key=…`);
    expect(bridge.stderr()).toContain(`openapi ${base}/spec.json?token=…`);
    for (const secret of [GQL_KEY, SPEC_KEY]) {
      expect(failed.text).not.toContain(secret);
      expect(bridge.stderr()).not.toContain(secret);
    }
  });
});

describe('displayUrl', () => {
  it('leaves out user info, query values and the fragment, and paths alone', () => {
    expect(displayUrl('https://me:pw@api.example.com/graphql?api_key=s3cret&v=2&flag#token=x')).toBe(
      'https://api.example.com/graphql?api_key=…&v=…&flag',
    );
    expect(displayUrl('http://127.0.0.1:8080/graphql')).toBe('http://127.0.0.1:8080/graphql');
    expect(displayUrl('./specs/api.yaml?x=1')).toBe('./specs/api.yaml?x=1');
    expect(displayUrl('http://user:pw@[bad/x?key=s')).toBe('http://[bad/x?key=…');
  });

  it('reads what the URL parser (and undici) reads as a URL, not what a pattern for "scheme://" does', () => {
    expect(displayUrl('https:\\\\me:pw@api.example.com/x?k=s')).toBe('https://api.example.com/x?k=…');
    expect(displayUrl('ht\ttps://me:pw@api.example.com/x?k=s')).toBe('https://api.example.com/x?k=…');
    expect(displayUrl('C:\\specs\\api.yaml')).toBe('C:\\specs\\api.yaml');
  });
});
