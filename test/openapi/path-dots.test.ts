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
    [label(true), ['', ''], '/v1/items/%2E%2E/owner'],
    [label(false), '', '/v1/items/%2E/owner'],
    [label(false), ['a', 'b'], '/v1/items/.a,b/owner'],
    [label(true), ['a', ''], '/v1/items/.a./owner'],
  ])('%# sends a segment that stays a value', (param, value, path) => {
    expect(pathOf(param, value)).toBe(path);
  });
});

// Simple-style values: unreserved characters go as they are, everything else is percent-encoded,
// and a value of only dots is encoded whole.
describe('simple path values', () => {
  const simple: ParamPlan = { ...label(false), style: 'simple' };
  it.each([
    ['a.b~c_d-E9', '/v1/items/a.b~c_d-E9/owner'],
    ['..', '/v1/items/%2E%2E/owner'],
    ['.', '/v1/items/%2E/owner'],
    ['a/../b', '/v1/items/a%2F..%2Fb/owner'],
    ["it's (x)*!", '/v1/items/it%27s%20%28x%29%2A%21/owner'],
    ['é?#', '/v1/items/%C3%A9%3F%23/owner'],
    ['', '/v1/items//owner'],
  ])('%j', (value, path) => {
    expect(pathOf(simple, value)).toBe(path);
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
