import { once } from 'node:events';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../adapters/openapi/build-request.js';
import { nextPageNote } from '../../adapters/openapi/next-page.js';
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
