import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NGINX, runNginx } from '../helpers/deployment.js';
import { firstText, type LoadedTools, loadTools } from './helpers/in-process.js';
import { startUpstream, type Upstream } from './helpers/upstream.js';

// Path arguments must not take a call out of the operation's path. Percent-encoding `..` as
// `%2E%2E` is not enough: RFC 3986 makes `%2E` a `.`, and nginx decodes `%2E` and `%2F` before it
// removes dot-segments and picks a location, so `../../internal/readme` behind it reached another
// backend path, with the user's credentials. Such values are refused; the upstream sees nothing.

const path = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
const ok = { '200': { description: 'ok' }, '204': { description: 'gone' } };

function writeSpec(dir: string, server: string): string {
  const spec = join(dir, 'spec.json');
  writeFileSync(
    spec,
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'docs', version: '1' },
      servers: [{ url: server }],
      paths: {
        '/docs/{name}': { get: { operationId: 'getDoc', parameters: [path('name')], responses: ok } },
        '/docs/{name}.{ext}': {
          get: { operationId: 'getDocExt', parameters: [path('name'), path('ext')], responses: ok },
        },
        '/repos/{owner}/{repo}/{path}/readme': {
          get: {
            operationId: 'getRepoFile',
            parameters: [path('owner'), path('repo'), path('path')],
            responses: ok,
          },
        },
        '/items/{id}': { delete: { operationId: 'delItem', parameters: [path('id')], responses: ok } },
      },
    }),
  );
  return spec;
}

let upstream: Upstream;
let dir: string;
beforeAll(async () => {
  upstream = await startUpstream();
  dir = mkdtempSync(join(tmpdir(), 'bridge-path-escape-'));
});
afterAll(async () => {
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Calls `name` and returns its result and the URLs the upstream received meanwhile.
async function sent(tools: LoadedTools, name: string, args: Record<string, unknown>) {
  const before = upstream.requests.length;
  const result = await tools.call(name, args);
  return {
    result,
    urls: upstream.requests.slice(before).map((request) => `${request.method} ${request.url}`),
  };
}

describe('straight to the upstream', () => {
  let tools: LoadedTools;
  beforeAll(async () => {
    tools = await loadTools({ spec: writeSpec(dir, `${upstream.origin}/api`), cache: false });
  });
  afterAll(() => tools?.close());

  it('refuses an empty id rather than deleting the collection', async () => {
    for (const id of ['', '/', '%2F']) {
      const { result, urls } = await sent(tools, 'delItem', { id });
      expect(urls).toEqual([]);
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/the path parameter "id" (is empty|makes the path segment)/);
    }
    const { urls } = await sent(tools, 'delItem', { id: '7' });
    expect(urls).toEqual(['DELETE /api/items/7']);
  });

  // Each of these is refused by its own value already; the segment the values build is checked
  // on its own in path-dots.test.ts ("checks the segment that several values build").
  it('refuses dot and empty values in a segment of two parameters, and sends nothing', async () => {
    for (const args of [
      { name: '', ext: '' },
      { name: '.', ext: '' },
      { name: '.', ext: 'x' },
      { name: 'x', ext: '%2E' },
    ]) {
      const { result, urls } = await sent(tools, 'getDocExt', args);
      expect(urls).toEqual([]);
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/the path parameters? "(name|ext)"/);
    }
    const { urls } = await sent(tools, 'getDocExt', { name: 'guide', ext: 'md' });
    expect(urls).toEqual(['GET /api/docs/guide.md']);
  });
});

describe.skipIf(!NGINX)('behind nginx, which decodes %2E and %2F', () => {
  let tools: LoadedTools;
  let nginx: AsyncDisposable;
  beforeAll(async () => {
    const backend = `127.0.0.1:${new URL(upstream.origin).port}`;
    const proxy = await runNginx(
      (listen) => `server {
    listen ${listen};
    location /api/public/ { proxy_pass http://${backend}/backend/public/; }
    location /api/internal/ { proxy_pass http://${backend}/backend/INTERNAL/; }
    location / { return 403; }
}`,
    );
    nginx = proxy;
    const spec = writeSpec(dir, `http://127.0.0.1:${proxy.port}/api/public`);
    tools = await loadTools({ spec, cache: false });
  });
  afterAll(async () => {
    await tools?.close();
    await nginx?.[Symbol.asyncDispose]();
  });

  it('never reaches another location with ".." in a value, encoded or not', async () => {
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['getDoc', { name: '../../internal/readme' }],
      ['getDoc', { name: '..%2F..%2Finternal%2Freadme' }],
      ['getDoc', { name: '%2E%2E/%2E%2E/internal/readme' }],
      ['getDoc', { name: '..\\..\\internal\\readme' }],
      ['getRepoFile', { owner: '..', repo: '..', path: 'internal' }],
      ['getRepoFile', { owner: 'o', repo: 'r', path: 'docs/../../../../internal' }],
      // `..;` is `..` to Tomcat and Spring behind the proxy (segment parameters taken off).
      ['getDoc', { name: '..;/..;/internal/readme' }],
    ];
    for (const [name, args] of attempts) {
      const { result, urls } = await sent(tools, name, args);
      expect(urls, JSON.stringify(args)).toEqual([]);
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/holds the path segment "\.\.(;[^"]*)?"/);
    }
    expect(upstream.requests.filter((request) => request.url.includes('INTERNAL'))).toEqual([]);
  });

  it('still sends a value with "/" in it, below the operation\'s path', async () => {
    const { result, urls } = await sent(tools, 'getDoc', { name: 'guides/intro.md' });
    expect(result.isError).toBeFalsy();
    // nginx decodes the `%2F` the bridge sent: more segments, never fewer.
    expect(urls).toEqual(['GET /backend/public/docs/guides/intro.md']);
    const repo = await sent(tools, 'getRepoFile', { owner: 'o', repo: 'r', path: '.github/workflows' });
    expect(repo.urls).toEqual(['GET /backend/public/repos/o/r/.github/workflows/readme']);
  });
});
