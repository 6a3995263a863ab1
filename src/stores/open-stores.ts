import type { Logger } from '../logger.js';
import { connectRedis, parseStoreUrl } from './redis-connection.js';
import { RedisResourceStore, type RedisResourceStoreOptions } from './redis-resource-store.js';
import { RedisStateClaims } from './redis-state-claims.js';
import { RedisTaskStore, type RedisTaskStoreOptions } from './redis-task-store.js';

/** The stores several bridge instances share: paged outputs and tasks. */
export interface SharedStores {
  resources: RedisResourceStore;
  tasks: RedisTaskStore;
  /** The 2026-07-28 request states any instance opened: a replay to another instance is refused. */
  requestStates: RedisStateClaims;
  /** Where they live, for logs (no credentials). */
  label: string;
  /** Fails this instance's unfinished tasks, leaves the instance set and disconnects. */
  close(): Promise<void>;
}

export interface SharedStoreOptions {
  resources?: RedisResourceStoreOptions;
  tasks?: RedisTaskStoreOptions;
  /** Where the credentials are read from (`BRIDGE_STORE_USERNAME`, `BRIDGE_STORE_PASSWORD`). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Opens the shared stores at `url` (`redis://HOST:PORT/DB`). Rejects with a `BridgeError` when the
 * URL is wrong (`invalid_input`) or Redis cannot be reached (`unavailable`): a bridge told to
 * share its state must not quietly keep it to itself.
 */
export async function openStores(
  url: string,
  log: Logger,
  options: SharedStoreOptions = {},
): Promise<SharedStores> {
  const address = parseStoreUrl(url);
  const redis = await connectRedis(address, log, options.env);
  try {
    const tasks = await RedisTaskStore.open(redis, log, options.tasks);
    const resources = new RedisResourceStore(redis, log, options.resources);
    log.info(`sharing tasks and outputs through ${address.label} (namespace ${address.namespace})`);
    return {
      resources,
      tasks,
      requestStates: new RedisStateClaims(redis),
      label: address.label,
      async close() {
        await tasks.close();
        await redis.close();
      },
    };
  } catch (error) {
    await redis.close();
    throw error;
  }
}
