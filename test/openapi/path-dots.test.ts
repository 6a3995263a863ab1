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
