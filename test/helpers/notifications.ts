import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { TestClient } from './connect.js';

/**
 * Resolves on the next change of the tool list the client is told about: the initialize-era
 * `notifications/tools/list_changed`, or the same notification on a 2026-07-28 `subscriptions/listen`.
 */
export async function onToolsChanged(
  client: TestClient,
): Promise<{ next(timeoutMs?: number): Promise<void> }> {
  let waiters: Array<() => void> = [];
  let pending = 0;
  const fire = () => {
    if (waiters.length === 0) pending++;
    for (const waiter of waiters) waiter();
    waiters = [];
  };
  if (client.kind === 'v1') {
    const raw = client.raw as import('@modelcontextprotocol/sdk/client/index.js').Client;
    raw.setNotificationHandler(ToolListChangedNotificationSchema, fire);
  } else {
    const raw = client.raw as unknown as {
      setNotificationHandler(method: string, handler: () => void): void;
      listen(filter: { toolsListChanged: boolean }): Promise<unknown>;
    };
    raw.setNotificationHandler('notifications/tools/list_changed', fire);
    await raw.listen({ toolsListChanged: true });
  }
  return {
    next(timeoutMs = 10_000) {
      if (pending > 0) {
        pending--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no tools/list_changed notification')), timeoutMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/**
 * Subscribes to `notifications/resources/updated` of `uri` the way the client's era does it: an
 * initialize-era client with `resources/subscribe`, a 2026-07-28 client with a
 * `subscriptions/listen` that names the URI. `seen` collects every URI heard; `next()` resolves
 * with the next one, or `undefined` after `timeoutMs`; `unsubscribe()` ends the subscription.
 */
export async function onResourceUpdated(client: TestClient, uri: string) {
  const seen: string[] = [];
  let wake = () => {};
  const add = (heard: string) => {
    seen.push(heard);
    wake();
  };
  let unsubscribe: () => Promise<unknown>;
  if (client.kind === 'v1') {
    const v1 = client.raw as ClientV1;
    v1.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => add(n.params.uri));
    await v1.subscribeResource({ uri });
    unsubscribe = () => v1.unsubscribeResource({ uri });
  } else {
    const v2 = client.raw as ClientV2;
    v2.setNotificationHandler('notifications/resources/updated', (n) => add(n.params.uri));
    const subscription = await v2.listen({ resourceSubscriptions: [uri] });
    unsubscribe = () => subscription.close();
  }
  return {
    seen,
    unsubscribe,
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
