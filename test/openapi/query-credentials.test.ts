import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstText, type LoadedTools, loadTools } from './helpers/in-process.js';

// An `apiKey` scheme in the query puts the user's key into the request URL. Nothing an agent sees
// may carry it (a `Location` resolved against that URL did: `Location: #x` came back as
// `…/loc?to=%23x&api_key=SECRETKEY#x`), and no argument may set a parameter of that name (an
// exploded object's `api_key` went before the real key, and many servers read the first).

const KEY = 'SECRETKEY';
const saved = { ...process.env };
let server: Server;
let base: string;
const seen: Array<{ url: string; cookie: string | undefined }> = [];
const hosts: Array<string | undefined> = [];
let location = '';
let dir: string;
let tools: LoadedTools;

beforeAll(async () => {
  Object.assign(process.env, { BRIDGE_KEY_API_KEY: KEY, BRIDGE_SESSION_API_KEY: 'cookie-secret' });
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', cookie: req.headers.cookie });
    hosts.push(req.headers.host);
    req.resume();
    if (req.method === 'POST') res.writeHead(201, { location });
    else res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.method === 'POST' ? undefined : '{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  dir = mkdtempSync(join(tmpdir(), 'bridge-query-credentials-'));
  const spec = join(dir, 'spec.json');
  const query = (name: string, schema: object = { type: 'string' }) => ({ name, in: 'query', schema });
  const ok = { '200': { description: 'ok' }, '201': { description: 'made' } };
  writeFileSync(
    spec,
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'keys', version: '1' },
      components: {
        securitySchemes: {
          key: { type: 'apiKey', in: 'query', name: 'api_key' },
          session: { type: 'apiKey', in: 'cookie', name: 'sid' },
        },
      },
      security: [{ key: [] }],
      paths: {
        '/loc': { post: { operationId: 'make', parameters: [query('to')], responses: ok } },
        '/search': {
          get: {
            operationId: 'search',
            parameters: [query('filter', { type: 'object', additionalProperties: { type: 'string' } })],
            responses: ok,
          },
        },
        '/legacy': { get: { operationId: 'legacy', parameters: [query('API_KEY')], responses: ok } },
        '/me': {
          get: {
            operationId: 'me',
            security: [{ session: [] }],
            parameters: [{ name: 'sid', in: 'cookie', schema: { type: 'string' } }],
            responses: ok,
          },
        },
        '/profile': {
          get: {
            operationId: 'profile',
            security: [{ session: [] }],
            // Header parameters OpenAPI has ignored (and Cookie, which the bridge sets itself), and
            // those of HTTP itself: Host would send the credentials to another site at that address.
            parameters: [
              'Cookie',
              'Authorization',
              'Accept',
              'Host',
              'Content-Length',
              'Transfer-Encoding',
              'Connection',
            ].map((name) => ({
              name,
              in: 'header',
              schema: { type: 'string' },
            })),
            responses: ok,
          },
        },
      },
    }),
  );
  tools = await loadTools({ spec, baseUrl: base, cache: false });
});
afterAll(async () => {
  await tools?.close();
  server?.close();
  rmSync(dir, { recursive: true, force: true });
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
});

async function call(name: string, args: Record<string, unknown>) {
  const before = seen.length;
  const result = await tools.call(name, args);
  const text = result.content.map((block) => ('text' in block ? block.text : '')).join('\n');
  return { result, text, sent: seen.slice(before) };
}

describe('the Location note', () => {
  it('resolves a relative Location against the URL without the key', async () => {
    location = '#x';
    const { result, text, sent } = await call('make', { to: '#x' });
    expect(sent.map((one) => one.url)).toEqual([`/v1/loc?to=%23x&api_key=${KEY}`]);
    expect(result.content.at(-1)).toEqual({ type: 'text', text: `Location: ${base}/loc?to=%23x#x` });
    expect(text).not.toContain(KEY);
  });

  it('takes the key out of a Location that names it, and gives none that holds it elsewhere', async () => {
    location = `/v1/items/5?api_key=${KEY}&x=1`;
    const named = await call('make', {});
    expect(named.result.content.at(-1)).toEqual({ type: 'text', text: `Location: ${base}/items/5?x=1` });
    location = `https://elsewhere.example/hook?k=${KEY}`;
    const elsewhere = await call('make', {});
    expect(elsewhere.sent).toHaveLength(1);
    expect(elsewhere.result.isError).toBeFalsy();
    expect(elsewhere.text).not.toContain(KEY);
    expect(elsewhere.text).not.toContain('Location');
  });
});

describe('arguments named like a credential', () => {
  it('refuses an exploded object member that would set the key, and sends nothing', async () => {
    for (const filter of [{ api_key: 'evil' }, { API_Key: 'evil' }]) {
      const { result, sent } = await call('search', { filter });
      expect(sent).toEqual([]);
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(
        /the argument "filter" sets the query parameter "api_key", which carries the credential of security scheme "key"/i,
      );
    }
    const { sent } = await call('search', { filter: { q: 'lamp' } });
    expect(sent.map((one) => one.url)).toEqual([`/v1/search?q=lamp&api_key=${KEY}`]);
  });

  it('refuses a declared query or cookie parameter of the same name when given', async () => {
    const query = await call('legacy', { API_KEY: 'evil' });
    expect(query.sent).toEqual([]);
    expect(firstText(query.result)).toContain('BRIDGE_KEY_API_KEY');
    const cookie = await call('me', { sid: 'evil' });
    expect(cookie.sent).toEqual([]);
    expect(firstText(cookie.result)).toContain('the argument "sid" sets the cookie parameter "sid"');
    const left = await call('me', {});
    expect(left.sent).toEqual([{ url: '/v1/me', cookie: 'sid=cookie-secret' }]);
  });
});

describe('header parameters the bridge sets itself', () => {
  it('are not offered: a Cookie argument never goes before the cookie credential', async () => {
    const { result, sent } = await call('profile', { Cookie: 'sid=evil' });
    expect(sent).toEqual([]);
    expect(result.isError).toBe(true);
    const properties = Object.keys(tools.registry.get('profile')?.definition.inputSchema.properties ?? {});
    expect(properties).toEqual([]);
    const plain = await call('profile', {});
    expect(plain.sent).toEqual([{ url: '/v1/profile', cookie: 'sid=cookie-secret' }]);
  });

  it('are not offered: a Host argument never sends the credentials to another site', async () => {
    const before = hosts.length;
    const { result, sent } = await call('profile', { Host: 'internal.example' });
    expect(sent).toEqual([]);
    expect(result.isError).toBe(true);
    await call('profile', { host: 'internal.example' });
    await call('profile', {});
    expect(hosts.slice(before)).toEqual([new URL(base).host]);
  });
});
