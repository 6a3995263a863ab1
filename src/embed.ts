/**
 * The embedding surface: what a host program needs to run a bridge inside itself — `serve` and
 * its options, and the stores that keep tasks and paged outputs (in memory, or shared through
 * Redis by several instances). Adapters import `src/index.ts` instead, never this.
 *
 * @example
 * ```ts
 * import { serve } from 'bridge/embed';
 * const bridge = await serve({ sources, transport: { kind: 'http', address: { host: '127.0.0.1', port: 8080 } },
 *   log, store: process.env.BRIDGE_STORE });
 * ```
 */

export {
  MemoryResourceStore,
  type MemoryResourceStoreOptions,
  type NewResource,
  type ResourceStore,
  type StoredContents,
  type StoredResource,
} from './resource-store.js';
export { type RunningBridge, type ServeOptions, serve, type TransportOptions } from './serve.js';
export { openStores, type SharedStoreOptions, type SharedStores } from './stores/open-stores.js';
export { RedisResourceStore, type RedisResourceStoreOptions } from './stores/redis-resource-store.js';
export { RedisTaskStore, type RedisTaskStoreOptions } from './stores/redis-task-store.js';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './tasks/memory-task-store.js';
export type { TaskOptions } from './tasks/task-runner.js';
export type {
  NewTask,
  TaskEvent,
  TaskOutcome,
  TaskPage,
  TaskRecord,
  TaskStatus,
  TaskStore,
} from './tasks/task-store.js';
export { parseListenAddress } from './transports/listen-address.js';
