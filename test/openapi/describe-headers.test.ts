import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../adapters/openapi/build-request.js';
import { locationNote, nextPageNote } from '../../adapters/openapi/describe-headers.js';
import type { ParamPlan } from '../../adapters/openapi/plan-parameters.js';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

// GitHub pages its lists with the Link header, and its cursor arguments say "A cursor, as given in
// the Link header": a model that never sees the header can read a list's first page and no other.
// The result now says which arguments give the next page.

const GITHUB = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');

const query = (name: string, arg = name): ParamPlan => ({
  name,
  in: 'query',
  arg,
  required: false,
  style: 'form',
  explode: true,
  allowReserved: false,
  json: false,
});
const request = (path: string): HttpRequest =>
  ({ method: 'get', origin: 'https://api.example.com', path, headers: {} }) as unknown as HttpRequest;

describe('nextPageNote', () => {
  const params = [query('page'), query('per_page'), query('after'), query('state'), query('q', 'q__query')];

  it('gives the arguments the next page changes, and the last page when the header names it', () => {
    const link =
      '<https://api.example.com/repositories/1/issues?state=open&page=2>; rel="next", ' +
      '<https://api.example.com/repositories/1/issues?state=open&page=34>; rel="last"';
    expect(nextPageNote(link, request('/repos/o/r/issues?state=open'), params, 'issues_list')).toBe(
      'More results: call issues_list again with the same arguments and {"page":"2"}. The last page: {"page":"34"}.',
    );
  });

  it('reads a cursor, relative targets, unquoted and multi-valued rel, by the argument carrying it', () => {
    expect(
      nextPageNote('</x?after=Y3Vy%3D&per_page=30>; rel=next', request('/x?per_page=30'), params, 't'),
    ).toBe('More results: call t again with the same arguments and {"after":"Y3Vy="}.');
    expect(
      nextPageNote('<https://h/x?q=b>; title="a, b"; rel="prev next"', request('/x?q=a'), params, 't'),
    ).toBe('More results: call t again with the same arguments and {"q__query":"b"}.');
  });

  it('says nothing without a next page, or when the next page needs what no argument carries', () => {
    expect(nextPageNote(undefined, request('/x'), params, 't')).toBeUndefined();
    expect(
      nextPageNote('<https://h/x?page=1>; rel="prev"', request('/x?page=2'), params, 't'),
    ).toBeUndefined();
    expect(
      nextPageNote('<https://h/x?page=2&token=z>; rel="next"', request('/x'), params, 't'),
    ).toBeUndefined();
    expect(
      nextPageNote('<https://h/x?page=2&page=3>; rel="next"', request('/x'), params, 't'),
    ).toBeUndefined();
    expect(
      nextPageNote('<https://h/x?page=1>; rel="next"', request('/x?page=1'), params, 't'),
    ).toBeUndefined();
    expect(nextPageNote('not a link header', request('/x'), params, 't')).toBeUndefined();
    expect(
      nextPageNote(`<https://h/x?after=${'c'.repeat(3_000)}>; rel="next"`, request('/x'), params, 't'),
    ).toBeUndefined();
  });

  it('never offers the query credential the bridge sent as an argument', () => {
    const sent = { ...request('/x?page=1&api_key=K1'), credentialQuery: ['api_key'] };
    const withKey = [...params, query('api_key')];
    expect(nextPageNote('</x?page=2&api_key=K2>; rel="next"', sent, withKey, 't')).toBe(
      'More results: call t again with the same arguments and {"page":"2"}.',
    );
  });
});

describe('locationNote', () => {
  it('gives where a created resource lives as an absolute URL, and nothing for what is not one', () => {
    expect(locationNote('/v1/items/42', request('/v1/items'))).toBe(
      'Location: https://api.example.com/v1/items/42',
    );
    expect(locationNote('https://other.example/x', request('/v1/items'))).toBe(
      'Location: https://other.example/x',
    );
    expect(locationNote(undefined, request('/x'))).toBeUndefined();
    expect(locationNote('javascript:alert(1)', request('/x'))).toBeUndefined();
    expect(locationNote('http://[bad', request('/x'))).toBeUndefined();
  });

  it('ends the result of a call whose answer names one: an empty 201 then says where the item is', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(201, { location: '/v1/items/42' });
        res.end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const dir = mkdtempSync(join(tmpdir(), 'bridge-location-'));
    try {
      const spec = join(dir, 'items.json');
      writeFileSync(
        spec,
        JSON.stringify({
          openapi: '3.0.3',
          info: { title: 'items', version: '1' },
          paths: {
            '/items': { post: { operationId: 'addItem', responses: { '201': { description: 'made' } } } },
          },
        }),
      );
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      await using client = await connect('v1', 'stdio', {
        script: BRIDGE_BIN,
        args: ['openapi', spec, '--base-url', base, '--no-cache'],
      });
      const result = await client.callTool('addItem', {});
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([
        { type: 'text', text: 'HTTP 201 Created' },
        { type: 'text', text: `Location: ${base}/items/42` },
      ]);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("GitHub's cursor-paged lists through the bridge", () => {
  it('dependabot alerts: the result names the next cursor, and the next call sends it', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      const url = new URL(req.url ?? '/', 'http://upstream');
      const after = url.searchParams.get('after');
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (!after) {
        headers.link = `<http://127.0.0.1:${(server.address() as AddressInfo).port}/repositories/7/dependabot/alerts?per_page=2&after=Y3Vyc29yOjI%3D>; rel="next"`;
      }
      res.writeHead(200, headers);
      res.end(JSON.stringify(after ? [{ number: 3 }] : [{ number: 1 }, { number: 2 }]));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await using client = await connect('v1', 'stdio', {
        script: BRIDGE_BIN,
        args: [
          'openapi',
          GITHUB,
          '--tools',
          'all',
          '--include',
          'dependabot/list-alerts-for-repo',
          '--base-url',
          base,
          '--no-cache',
        ],
      });
      const first = await client.callTool('dependabot_list-alerts-for-repo', {
        owner: 'octo',
        repo: 'app',
        per_page: 2,
      });
      expect(first.isError).toBeFalsy();
      expect(first.content.at(-1)).toEqual({
        type: 'text',
        text: 'More results: call dependabot_list-alerts-for-repo again with the same arguments and {"after":"Y3Vyc29yOjI="}.',
      });
      const second = await client.callTool('dependabot_list-alerts-for-repo', {
        owner: 'octo',
        repo: 'app',
        per_page: 2,
        after: 'Y3Vyc29yOjI=',
      });
      expect(second.content).toHaveLength(1);
      expect(seen).toEqual([
        '/repos/octo/app/dependabot/alerts?per_page=2',
        '/repos/octo/app/dependabot/alerts?after=Y3Vyc29yOjI%3D&per_page=2',
      ]);
    } finally {
      server.close();
    }
  });
});
