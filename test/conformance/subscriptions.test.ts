// Subscriptions to catalog resources: `resources/subscribe` in the initialize era (both
// transports), `subscriptions/listen` in 2026-07-28 (both transports); the fixture's
// test_touch_watched_resource changes test://watched-resource and calls notifyResourceUpdated.
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connect } from '../helpers/connect.js';
import { distPath } from '../helpers/start-bridge.js';

const fixtureServer = { script: distPath('test/servers/conformance-server.js'), args: [] };
const WATCHED = 'test://watched-resource';

/** Collects the URIs of `notifications/resources/updated`; `next()` waits for one more. */
function updates() {
  const seen: string[] = [];
  let wake = () => {};
  return {
    seen,
    add(uri: string) {
      seen.push(uri);
      wake();
    },
    next(timeoutMs = 5000) {
      const count = seen.length;
      return new Promise<string | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), timeoutMs);
        wake = () => {
          if (seen.length > count) {
            clearTimeout(timer);
            resolve(seen.at(-1));
          }
        };
      });
    },
  };
}

describe.each(['stdio', 'http'] as const)('resource subscriptions, v1 client over %s', (wire) => {
  it('notifies a subscriber of changes until it unsubscribes; unknown URIs are refused', async () => {
    await using client = await connect('v1', wire, fixtureServer);
    const v1 = client.raw as ClientV1;
    expect(v1.getServerCapabilities()?.resources).toEqual({ subscribe: true });
    const heard = updates();
    v1.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => heard.add(n.params.uri));

    await v1.subscribeResource({ uri: WATCHED });
    const first = heard.next();
    await client.callTool('test_touch_watched_resource');
    expect(await first).toBe(WATCHED);
    const [contents] = (await client.readResource(WATCHED)).contents;
    expect(contents?.text).toMatch(/version \d+$/);

    await v1.unsubscribeResource({ uri: WATCHED });
    const none = heard.next(500);
    await client.callTool('test_touch_watched_resource');
    expect(await none).toBeUndefined();
    expect(heard.seen).toEqual([WATCHED]);

    await expect(v1.subscribeResource({ uri: 'test://nothing-here' })).rejects.toMatchObject({
      code: -32602,
    });
  });
});

describe.each(['stdio', 'http'] as const)(
  'resource subscriptions, v2 client (2026-07-28) over %s',
  (wire) => {
    it('delivers updates on a subscriptions/listen that asked for the URI, and only there', async () => {
      await using client = await connect('v2', wire, fixtureServer);
      const v2 = client.raw as ClientV2;
      const heard = updates();
      v2.setNotificationHandler('notifications/resources/updated', (n) => heard.add(n.params.uri));
      const subscription = await v2.listen({ resourceSubscriptions: [WATCHED] });
      try {
        const first = heard.next();
        await client.callTool('test_touch_watched_resource');
        expect(await first).toBe(WATCHED);
      } finally {
        await subscription.close();
      }
      // Without a subscription that names the URI, nothing is sent.
      const none = heard.next(500);
      await client.callTool('test_touch_watched_resource');
      expect(await none).toBeUndefined();
      expect(heard.seen).toEqual([WATCHED]);
    });
  },
);
