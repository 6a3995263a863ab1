import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MISSING_BINARIES, startRedis, type TestRedis } from '../helpers/deployment.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { FIXTURES } from '../openapi/helpers/in-process.js';
import { startUpstream, type Upstream } from '../openapi/helpers/upstream.js';

const KEY = `${'k'.repeat(16)}shared-between-instances`;
const forms = { elicitation: { form: {} } };

// A 2026-07-28 question round may be answered through another instance behind a load balancer:
// with the same BRIDGE_STATE_KEY the state opens there; with each instance's own key it cannot.
describe.skipIf(MISSING_BINARIES)('question rounds across instances on one store', () => {
  let redis: TestRedis;
  let upstream: Upstream;
  beforeAll(async () => {
    redis = await startRedis();
    upstream = await startUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
    await redis?.[Symbol.asyncDispose]();
  });

  const instance = (env: Record<string, string>): Promise<HttpBridge> =>
    startHttpBridge({
      script: BRIDGE_BIN,
      args: [
        'openapi',
        join(FIXTURES, 'api-3.0.yaml'),
        '--base-url',
        upstream.url,
        '--confirm',
        'destructive',
        '--store',
        redis.url,
      ],
      env,
    });

  const deleteItem = (bridge: HttpBridge, itemId: string, extra: Record<string, unknown> = {}) =>
    modernRequest(
      bridge.url,
      'tools/call',
      { name: 'deleteItem', arguments: { itemId }, ...extra },
      { capabilities: forms },
    );

  async function confirmThroughOther(a: HttpBridge, b: HttpBridge, itemId: string) {
    const first = await deleteItem(a, itemId);
    const round = first.json?.result as Record<string, unknown>;
    expect(round.resultType).toBe('input_required');
    const [key] = Object.keys(round.inputRequests as object);
    return deleteItem(b, itemId, {
      requestState: round.requestState,
      inputResponses: { [key as string]: { action: 'accept', content: { confirm: true } } },
    });
  }

  it('runs the call when every instance has the same BRIDGE_STATE_KEY', async () => {
    await using a = await instance({ BRIDGE_STATE_KEY: KEY });
    await using b = await instance({ BRIDGE_STATE_KEY: KEY });
    const answer = await confirmThroughOther(a, b, 'shared');
    expect(answer.json?.error).toBeUndefined();
    expect(answer.json?.result?.isError).toBeFalsy();
    expect(
      upstream.requests.filter((seen) => seen.method === 'DELETE' && seen.url.endsWith('/shared')),
    ).toHaveLength(1);
  });

  it('refuses a confirmation replayed to another instance: the call runs once', async () => {
    await using a = await instance({ BRIDGE_STATE_KEY: KEY });
    await using b = await instance({ BRIDGE_STATE_KEY: KEY });
    const first = await deleteItem(a, 'once');
    const round = first.json?.result as Record<string, unknown>;
    const [key] = Object.keys(round.inputRequests as object);
    const retry = {
      requestState: round.requestState,
      inputResponses: { [key as string]: { action: 'accept', content: { confirm: true } } },
    };
    const answered = await deleteItem(b, 'once', retry);
    expect(answered.json?.result?.isError).toBeFalsy();
    // The same state and answer again, to the instance that did not open it: refused there too.
    const replayed = await deleteItem(a, 'once', retry);
    expect(replayed.json?.error?.code).toBe(-32602);
    expect(replayed.json?.error?.message).toContain('already used');
    const again = await deleteItem(b, 'once', retry);
    expect(again.json?.error?.code).toBe(-32602);
    // The world: the upstream saw one DELETE.
    expect(
      upstream.requests.filter((seen) => seen.method === 'DELETE' && seen.url.endsWith('/once')),
    ).toHaveLength(1);
  });

  it('refuses the answer on another instance without a shared key, runs nothing, and says why at start', async () => {
    await using a = await instance({});
    await using b = await instance({});
    const answer = await confirmThroughOther(a, b, 'unshared');
    expect(answer.json?.error?.code).toBe(-32602);
    expect(upstream.requests.filter((seen) => seen.url.endsWith('/unshared'))).toEqual([]);
    expect(a.stderr()).toContain('BRIDGE_STATE_KEY is not');
  });

  it('refuses a key shorter than 32 bytes at start, exit 2', () => {
    const result = spawnSync(
      process.execPath,
      [BRIDGE_BIN, 'openapi', join(FIXTURES, 'api-3.0.yaml'), '--base-url', upstream.url],
      { env: { ...process.env, BRIDGE_STATE_KEY: 'short' }, encoding: 'utf8', input: '' },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('BRIDGE_STATE_KEY must be at least 32 bytes long (got 5)');
  });
});
