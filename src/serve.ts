import type { Catalog } from './catalog.js';
import { countOf } from './count-of.js';
import { BridgeError, describeError } from './errors.js';
import type { Logger } from './logger.js';
import { renamedWarning, ToolRegistry } from './registry.js';
import {
  MemoryResourceStore,
  type MemoryResourceStoreOptions,
  type ResourceStore,
} from './resource-store.js';
import type { ServerSetup } from './server/create-server.js';
import { SignInCallbacks } from './sign-in/sign-in-callbacks.js';
import type { Source } from './source.js';
import type { SharedStoreOptions } from './stores/open-stores.js';
import {
  ERAS,
  type EraDelivery,
  type StartTransport,
  type TransportOptions,
} from './transports/transport.js';

export type { TransportOptions } from './transports/transport.js';

export interface ServeOptions {
  sources: Source[];
  transport: TransportOptions;
  log: Logger;
  info?: { name: string; version: string };
  instructions?: string;
  /** Lifetime and per-caller byte quota of paged outputs (and the total, in memory). */
  resources?: MemoryResourceStoreOptions;
  /**
   * Share tasks and paged outputs with other instances through Redis: `redis://HOST:PORT/DB`
   * (`?namespace=NAME` to share one Redis between deployments). Default: in this process's memory.
   * Credentials come from `BRIDGE_STORE_USERNAME` / `BRIDGE_STORE_PASSWORD`, never the URL.
   */
  store?: string;
  /** A resource store of your own (overrides `resources` and `store` for outputs). */
  resourceStore?: ResourceStore;
  /** Prompts, fixed resources and resource templates to serve beside the tools. */
  catalog?: Catalog;
  /** Task lifetime bounds (TTL default, min, max), polling pace, memory cap, or another store. */
  tasks?: ServerSetup['tasks'];
  /** Asking the client: the 2026-07-28 request-state key, the initialize-era answer timeout. */
  ask?: ServerSetup['ask'];
  /** Longest silence of a call with a progress token before a keep-alive progress notification. */
  progressKeepAliveMs?: number;
  /**
   * Upstream OAuth sign-ins: the redirect URI to register and send (default: the environment's
   * `BRIDGE_OAUTH_REDIRECT_URI`, else this server's `/oauth/callback` over HTTP, a loopback
   * listener on 127.0.0.1 over stdio).
   */
  signIn?: { redirectUri?: string };
  /**
   * Gives up the start: aborted while the sources load, the waits in the load end (a spec's fetch,
   * a FIFO's writer, a CLI's discovery) and `serve` rejects with the signal's reason. Not looked at
   * once the bridge serves (`close` stops it then).
   */
  signal?: AbortSignal;
}

/** How long a source replaced by a reload keeps serving the calls that started before it. */
const RETIRED_SOURCE_GRACE_MS = 5 * 60_000;

/** A running bridge. */
export interface RunningBridge {
  /** The HTTP endpoint, when serving HTTP. */
  url?: string;
  /** The tools being served right now. */
  registry(): ToolRegistry;
  /**
   * Rebuilds the tools, from `sources` when given (they replace the current ones) or else from the
   * current sources, and tells connected clients. On failure keeps the current tools and sources and
   * rethrows. Calls in flight finish on the tools they started with; replaced sources are closed
   * a while later, or at shutdown.
   */
  reload(sources?: Source[]): Promise<void>;
  /**
   * Tells clients subscribed to the catalog resource `uri` that it changed
   * (`notifications/resources/updated`): initialize-era subscribers, and 2026-07-28
   * `subscriptions/listen` subscriptions, on either transport.
   */
  notifyResourceUpdated(uri: string): void;
  /** Resolves when the server stops (stdin closed, or `close` called). */
  closed: Promise<void>;
  /** Aborts calls in flight, closes connections and sources. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts a bridge: loads the sources, builds the registry, and serves it on the chosen transport.
 * Steps: load → build the server factory → listen → wait for the end → shut down.
 */
export async function serve(options: ServeOptions): Promise<RunningBridge> {
  const { log, signal } = options;
  // Given up before it began: nothing is opened.
  signal?.throwIfAborted();
  const shutdown = new AbortController();
  let sources = options.sources;
  // What a start that ends early has opened: the sources' processes and connections, the store,
  // or an embedding program would keep them, and the process, alive.
  const release = async (error: unknown) => {
    shutdown.abort(error);
    await Promise.allSettled(sources.map((source) => source.close?.()));
    await shared?.close().catch(() => {});
  };
  // Settings are checked before anything is opened, so that a bad one leaves nothing to close.
  const signIn = new SignInCallbacks(signInSettings(options.signIn));
  // Opened first: a bridge told to share its state stops here when it cannot reach the store.
  // Loaded only with a store: the Redis client is a fifth of a bare start's module loading.
  const shared = options.store
    ? await (await import('./stores/open-stores.js')).openStores(options.store, log, storeOptions(options))
    : undefined;
  let registry: ToolRegistry;
  // The sources start reading their files (an OpenAPI spec: ~11 ms for GitHub's 13 MB) before the
  // protocol side is evaluated, which then runs while the reads are in flight.
  const loading = ToolRegistry.load(sources, { log, signal: shutdown.signal });
  const protocol = import('./server/protocol.js');
  // Awaited below; a load that fails first must not leave it unhandled.
  protocol.catch(() => {});
  const giveUp = () => shutdown.abort(signal?.reason);
  if (signal?.aborted) giveUp();
  else signal?.addEventListener('abort', giveUp, { once: true });
  try {
    registry = await loading;
    // A load that finished all the same (nothing in it was waiting) still ends the start.
    signal?.throwIfAborted();
  } catch (error) {
    // One source failed, or the start was given up: the others may still be loading, or hold
    // processes and connections.
    await release(error);
    throw error;
  } finally {
    signal?.removeEventListener('abort', giveUp);
  }
  const { createServerFactory, ResourceSubscriptions, TRANSPORTS } = await protocol;
  log.info(
    `serving ${countOf(registry.tools.length, 'tool')} from ${sources.map((s) => s.label).join(', ')}`,
  );
  const renamed = renamedWarning(registry);
  if (renamed) log.warn(renamed);

  const subscriptions = new ResourceSubscriptions();
  const factory = createServerFactory({
    info: options.info ?? { name: 'bridge', version: '0.1.0' },
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    registry: () => registry,
    resources: options.resourceStore ?? shared?.resources ?? new MemoryResourceStore(options.resources),
    ...(options.catalog ? { catalog: options.catalog } : {}),
    subscriptions,
    log,
    shutdown: shutdown.signal,
    signIn,
    ...(options.tasks || shared
      ? { tasks: { ...options.tasks, ...(shared ? { store: shared.tasks } : {}) } }
      : {}),
    // Behind one endpoint, a request state opened by any instance is refused by every other one.
    ...(options.ask || shared
      ? { ask: { ...options.ask, ...(shared ? { claims: shared.requestStates } : {}) } }
      : {}),
    ...(options.progressKeepAliveMs === undefined
      ? {}
      : { progressKeepAliveMs: options.progressKeepAliveMs }),
  });

  const hasResources = (options.catalog?.resources?.length ?? 0) > 0;
  const hasTemplates = (options.catalog?.resourceTemplates?.length ?? 0) > 0;
  const start = (await TRANSPORTS[options.transport.kind]()) as StartTransport<TransportOptions>;
  let transport: Awaited<ReturnType<typeof start>>;
  try {
    transport = await start(options.transport, {
      factory,
      log,
      legacyResourceUpdated: (uri) => subscriptions.updated(uri),
      resourceSubscriptions: hasResources || hasTemplates,
      toolInputSchema: (name) => registry.get(name)?.definition.inputSchema,
      routes: signIn.route,
    });
  } catch (error) {
    // A port in use: what the start opened is released (see `release`).
    await release(error);
    throw error;
  }
  const { url } = transport;
  if (url !== undefined) {
    // Sign-in redirects come back to this server's /oauth/callback.
    signIn.useHttpServer(url);
    log.info(`listening on ${url}`);
  }
  const deliver = (send: (delivery: EraDelivery) => void) => {
    for (const era of ERAS) send(transport.delivery[era]);
  };

  // A replaced source may still serve calls that started before the reload: close it later.
  const retired = new Set<Source>();
  const retire = (source: Source) => {
    retired.add(source);
    const timer = setTimeout(() => {
      retired.delete(source);
      void source.close?.().catch((error) => log.debug(`closing ${source.label}: ${describeError(error)}`));
    }, RETIRED_SOURCE_GRACE_MS);
    timer.unref();
  };

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      shutdown.abort(new Error('The server is shutting down.'));
      await transport.close().catch((error) => log.debug(`closing transport: ${describeError(error)}`));
      await signIn.close();
      await Promise.allSettled([...sources, ...retired].map((source) => source.close?.()));
      await shared?.close().catch((error) => log.debug(`closing the store: ${describeError(error)}`));
    })();
    return closing;
  };
  const closed = transport.closed.then(close);

  return {
    ...(url === undefined ? {} : { url }),
    registry: () => registry,
    async reload(next = sources) {
      const loaded = await ToolRegistry.load(next, { log, signal: shutdown.signal });
      const replaced = sources.filter((source) => !next.includes(source));
      sources = next;
      registry = loaded;
      deliver((era) => era.toolsChanged());
      for (const source of replaced) retire(source);
    },
    notifyResourceUpdated(uri) {
      deliver((era) => era.resourceUpdated(uri));
    },
    closed,
    close,
  };
}

function storeOptions(options: ServeOptions): SharedStoreOptions {
  const resources = {
    ...(options.resources?.ttlMs === undefined ? {} : { ttlMs: options.resources.ttlMs }),
    ...(options.resources?.maxBytesPerCaller === undefined
      ? {}
      : { maxBytesPerCaller: options.resources.maxBytesPerCaller }),
  };
  const perCaller = options.tasks?.memory?.maxTasksPerCaller;
  return { resources, ...(perCaller === undefined ? {} : { tasks: { maxTasksPerCaller: perCaller } }) };
}

// Behind a proxy or on 0.0.0.0 the listening address is not what browsers reach: the user names it.
function signInSettings(given: ServeOptions['signIn']): { redirectUri?: string } {
  const redirectUri = given?.redirectUri ?? process.env.BRIDGE_OAUTH_REDIRECT_URI;
  if (redirectUri === undefined || redirectUri === '') return {};
  // The error names where the bad value came from.
  const where = given?.redirectUri === undefined ? 'BRIDGE_OAUTH_REDIRECT_URI' : 'signIn.redirectUri';
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    throw new BridgeError('invalid_input', `${where} is not a URL: "${redirectUri}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BridgeError('invalid_input', `${where} must be an http or https URL, got "${redirectUri}"`);
  }
  return { redirectUri: url.href };
}
