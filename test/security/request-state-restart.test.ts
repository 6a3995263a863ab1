import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { FIXTURES } from '../openapi/helpers/in-process.js';
import { startUpstream, type Upstream } from '../openapi/helpers/upstream.js';

const KEY = `${'k'.repeat(16)}set-without-a-store`;
const forms = { elicitation: { form: {} } };

// Which request states were used is remembered in the process (or in a shared store). A
// BRIDGE_STATE_KEY without a store must not let a confirmed round run again after a restart.
describe('a question round answered before a restart', () => {
  let upstream: Upstream;
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  const start = (): Promise<HttpBridge> =>
    startHttpBridge({
      script: BRIDGE_BIN,
      args: [
        'openapi',
        join(FIXTURES, 'api-3.0.yaml'),
        '--base-url',
        upstream.url,
        '--confirm',
        'destructive',
      ],
      env: { BRIDGE_STATE_KEY: KEY },
    });

  const deleteItem = (bridge: HttpBridge, extra: Record<string, unknown> = {}) =>
    modernRequest(
      bridge.url,
      'tools/call',
      { name: 'deleteItem', arguments: { itemId: 'restart' }, ...extra },
      { capabilities: forms },
    );

  it('is not run again by the same state and answer after it, even with the same BRIDGE_STATE_KEY', async () => {
    let retry: Record<string, unknown>;
    {
      await using before = await start();
      const round = (await deleteItem(before)).json?.result as Record<string, unknown>;
      expect(round.resultType).toBe('input_required');
      const [key] = Object.keys(round.inputRequests as object);
      retry = {
        requestState: round.requestState,
        inputResponses: { [key as string]: { action: 'accept', content: { confirm: true } } },
      };
      expect((await deleteItem(before, retry)).json?.result?.isError).toBeFalsy();
      expect(before.stderr()).toContain('BRIDGE_STATE_KEY is set but no shared store is');
    }
    await using after = await start();
    const replayed = await deleteItem(after, retry);
    expect(replayed.json?.error?.code).toBe(-32602);
    // The world: the upstream saw one DELETE.
    expect(
      upstream.requests.filter((seen) => seen.method === 'DELETE' && seen.url.endsWith('/restart')),
    ).toHaveLength(1);
  });
});
