import { describe, expect, it } from 'vitest';
import { buildRequest } from '../../adapters/openapi/build-request.js';
import type { ParamPlan } from '../../adapters/openapi/plan-operation.js';

// A label-style path parameter brings its own dots: whatever the values, the segment it fills is
// never `.` or `..`, which every URL parser on the way would resolve out of the operation's path.
const label = (explode: boolean): ParamPlan => ({
  name: 'id',
  in: 'path',
  arg: 'id',
  required: true,
  style: 'label',
  explode,
  allowReserved: false,
  json: false,
});

function pathOf(param: ParamPlan, value: unknown): string {
  const plan = {
    method: 'get' as const,
    path: '/items/{id}/owner',
    params: [param],
    security: [],
    accept: '*/*',
  };
  return buildRequest(plan, { id: value }, new URL('http://api.test/v1')).path;
}

describe('path parameters made of dots', () => {
  it.each([
    [label(false), ['a', 'b'], '/v1/items/.a,b/owner'],
    [label(true), ['a', ''], '/v1/items/.a./owner'],
  ])('%# sends a segment that stays a value', (param, value, path) => {
    expect(pathOf(param, value)).toBe(path);
  });

  // `.` + `.` + `` is `..`; `.` + `` is `.`: refused, not encoded, since `%2E` is `.` to a server.
  it.each([
    [label(true), ['', ''], /"id" makes the path segment "\.\."/],
    [label(false), '', /"id" is empty/],
    [label(false), [], /"id" makes the path segment "\."/],
  ])('%# refuses a segment the label style makes into a dot-segment', (param, value, message) => {
    expect(() => pathOf(param, value)).toThrow(message);
  });
});

// Simple-style values: unreserved characters go as they are, everything else is percent-encoded;
// a value holding a dot-segment, encoded or not, or nothing, is refused.
describe('simple path values', () => {
  const simple: ParamPlan = { ...label(false), style: 'simple' };
  it.each([
    ['a.b~c_d-E9', '/v1/items/a.b~c_d-E9/owner'],
    ['...', '/v1/items/.../owner'],
    ['.github/workflows/ci.yml', '/v1/items/.github%2Fworkflows%2Fci.yml/owner'],
    ['feature/x', '/v1/items/feature%2Fx/owner'],
    ["it's (x)*!", '/v1/items/it%27s%20%28x%29%2A%21/owner'],
    ['a;b', '/v1/items/a%3Bb/owner'],
    ['100%', '/v1/items/100%25/owner'],
    ['é?#', '/v1/items/%C3%A9%3F%23/owner'],
    // Four-byte UTF-8 that is not overlong stays a value.
    ['%F0%9F%98%80', '/v1/items/%25F0%259F%2598%2580/owner'],
    ['😀.😀', '/v1/items/%F0%9F%98%80.%F0%9F%98%80/owner'],
  ])('%j', (value, path) => {
    expect(pathOf(simple, value)).toBe(path);
  });

  it.each([
    ['..', /"id" holds the path segment "\.\."/],
    ['.', /"id" holds the path segment "\."/],
    ['a/../b', /"id" holds the path segment "\.\."/],
    ['a\\..\\b', /"id" holds the path segment "\.\."/],
    ['./README.md', /"id" holds the path segment "\."/],
    ['%2E%2E', /"id" holds the path segment "\.\."/],
    ['x%2f%2e', /"id" holds the path segment "\."/],
    ['%252e%252E%252Fadmin', /"id" holds the path segment "\.\."/],
    ['..;/admin', /"id" holds the path segment "\.\.;"/],
    ['x/.;jsessionid=1/y', /"id" holds the path segment "\.;jsessionid=1"/],
    ['', /"id" is empty/],
    ['/', /"id" makes the path segment "%2F", empty once decoded/],
    // Decoded as many times as a chain of servers likes, however each level is spelled.
    ['%25%32%45%25%32%45', /"id" holds the path segment "\.\."/],
    ['..%3B', /"id" holds the path segment "\.\.;"/],
    ['%u002e%u002e', /"id" holds the path segment "\.\."/],
    ['%C0%AE%C0%AE/admin', /"id" holds the path segment "\.\."/],
    ['%E0%80%AE%E0%80%AE', /"id" holds the path segment "\.\."/],
    ['%F0%80%80%AE%F0%80%80%AE', /"id" holds the path segment "\.\."/],
    ['%F8%80%80%80%AE%FC%80%80%80%80%AE', /"id" holds the path segment "\.\."/],
    ['x%E0%80%AF..%C0%AFy', /"id" holds the path segment "\.\."/],
    ['x／..／y', /"id" holds the path segment "\.\."/],
    ['x/．．/y', /"id" holds the path segment "\.\."/],
    // A URL parser drops tabs and line ends: `.\t.` is `..`; a C server stops at NUL.
    ['.\t./.\t./admin', /"id" holds a control character/],
    ['\n..\n', /"id" holds a control character/],
    ['..%00', /"id" holds a control character/],
    ['a%0Db', /"id" holds a control character/],
    // Nothing but `;parameters`: Tomcat and Spring take them off, leaving an empty id.
    [';', /"id" makes the path segment "%3B", nothing but ";parameters" once decoded/],
    [';x', /"id" makes the path segment "%3Bx", nothing but ";parameters" once decoded/],
  ])('refuses %j', (value, message) => {
    expect(() => pathOf(simple, value)).toThrow(message);
  });

  it('decodes any depth of %25 as a proxy would, and quotes no more than 80 characters of the value', () => {
    // One pass whatever the depth (a loop decoding one level at a time was quadratic in the length).
    const deep = `%${'25'.repeat(4_000)}2E%2E`;
    expect(() => pathOf(simple, deep)).toThrow(/"id" holds the path segment "\.\." \("%[25]{75}\.\.\.\)/);
  });

  it('refuses a value longer than any server takes, before reading it', () => {
    expect(() => pathOf(simple, '%25'.repeat(1_400_000))).toThrow(
      /"id" is 4,200,000 characters long, more than the 8,192 a path value may be/,
    );
  });

  it('takes a matrix-style value, which builds ;name=value by design', () => {
    expect(pathOf({ ...simple, style: 'matrix' }, '5')).toBe('/v1/items/;id=5/owner');
  });

  it('refuses a lone surrogate by name, not with a bare URIError', () => {
    expect(() => pathOf(simple, 'a\ud800')).toThrow(/"id" holds a lone UTF-16 surrogate/);
  });

  it('checks the segment that several values build', () => {
    const param = (name: string): ParamPlan => ({ ...simple, name, arg: name });
    const plan = (path: string) => ({
      method: 'get' as const,
      path,
      params: [param('name'), param('ext')],
      security: [],
      accept: '*/*',
    });
    const base = new URL('http://api.test/v1');
    expect(buildRequest(plan('/files/{name}.{ext}/x'), { name: 'a', ext: 'md' }, base).path).toBe(
      '/v1/files/a.md/x',
    );
    expect(() => buildRequest(plan('/files/{name}{ext}/x'), { name: '.', ext: 'x' }, base)).toThrow(
      /"name" holds the path segment "\."/,
    );
    expect(() => buildRequest(plan('/files/{name}{ext}/x'), { name: 'x', ext: [] }, base)).not.toThrow();
    expect(() => buildRequest(plan('/files/{name}{ext}/x'), { name: [], ext: [] }, base)).toThrow(
      /path parameters "name" and "ext" make an empty path segment/,
    );
  });

  it('keeps the base URL path, without its trailing slashes, on every call', () => {
    const base = new URL('http://api.test/v1//');
    const plan = {
      method: 'get' as const,
      path: '/items/{id}',
      params: [simple],
      security: [],
      accept: '*/*',
    };
    const first = buildRequest(plan, { id: '1' }, base);
    const second = buildRequest(plan, { id: '2' }, base);
    expect([first.origin, first.path, second.path]).toEqual([
      'http://api.test',
      '/v1/items/1',
      '/v1/items/2',
    ]);
  });
});
