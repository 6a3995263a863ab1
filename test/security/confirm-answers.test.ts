import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { FIXTURES } from '../openapi/helpers/in-process.js';
import { startUpstream, type Upstream } from '../openapi/helpers/upstream.js';

const forms = { elicitation: { form: {} } };
const confirmed = { bridge_confirm: { action: 'accept', content: { confirm: true } } };

// A 2026-07-28 confirmation is a question the bridge asks and seals into the request state: an
// answer that comes without that state, or with a state used already, must not run anything.
describe('confirmation answers on the wire (2026-07-28)', () => {
  let upstream: Upstream;
  let bridge: HttpBridge;
  beforeAll(async () => {
    upstream = await startUpstream();
    bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['openapi', join(FIXTURES, 'api-3.0.yaml'), '--base-url', upstream.url, '--confirm', 'always'],
    });
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
    await upstream?.close();
  });

  const deletes = (id: string) =>
    upstream.requests.filter((seen) => seen.method === 'DELETE' && seen.url.endsWith(`/items/${id}`));
  const call = (params: Record<string, unknown>) =>
    modernRequest(bridge.url, 'tools/call', { name: 'deleteItem', ...params }, { capabilities: forms });

  it('asks instead of running an answer given up front, however often it is sent', async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const reply = await call({ arguments: { itemId: 'upfront' }, inputResponses: confirmed });
      const result = reply.json?.result as Record<string, unknown>;
      expect(result.resultType).toBe('input_required');
      expect(Object.keys(result.inputRequests as object)).toEqual(['bridge_confirm']);
    }
    expect(deletes('upfront')).toEqual([]);
  });

  it('runs a call confirmed through its state once, and refuses the state replayed', async () => {
    const first = await call({ arguments: { itemId: 'asked' } });
    const requestState = first.json?.result?.requestState;
    expect(typeof requestState).toBe('string');
    expect(deletes('asked')).toEqual([]);

    const done = await call({ arguments: { itemId: 'asked' }, inputResponses: confirmed, requestState });
    expect(done.json?.result?.isError).toBeFalsy();
    expect(deletes('asked')).toHaveLength(1);

    const replay = await call({ arguments: { itemId: 'asked' }, inputResponses: confirmed, requestState });
    expect(replay.json?.error?.code).toBe(-32602);
    expect(replay.json?.error?.message).toContain('already used');
    expect(deletes('asked')).toHaveLength(1);
  });

  it('matches a retry that repeats arguments the checks corrected (a number sent as text)', async () => {
    const status = (params: Record<string, unknown>) =>
      modernRequest(bridge.url, 'tools/call', { name: 'getStatus', ...params }, { capabilities: forms });
    const first = await status({ arguments: { code: '418' } });
    const requestState = first.json?.result?.requestState;
    expect(typeof requestState).toBe('string');
    const done = await status({ arguments: { code: '418' }, inputResponses: confirmed, requestState });
    expect(done.json?.error).toBeUndefined();
    expect(done.json?.result?.content?.[0]?.text).toContain('418');
    expect(upstream.requests.filter((seen) => seen.url.endsWith('/status/418'))).toHaveLength(1);
  });
});
