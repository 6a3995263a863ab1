import { isDeepStrictEqual } from 'node:util';
import { countOf } from '../count-of.js';
import { BridgeError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { commandsRunning, commandThatChanged, protectPaths } from '../protected-paths.js';
import { renamedWarning, type ToolRegistry } from '../registry.js';
import { type RunningBridge, serve, type TransportOptions } from '../serve.js';
import type { Source } from '../source.js';
import { buildSources, watchedFiles } from './build-sources.js';
import type { ServerSettings } from './config-schema.js';
import type { BridgeConfig } from './load-config.js';
import { warnAboutLargeTools } from './token-budget.js';
import { type FileWatcher, shortName, watchFiles } from './watch-files.js';

export interface ServeConfigOptions {
  config: BridgeConfig;
  /** Reads the config again (from its file) on reload; without it the same config is rebuilt. */
  reread?: () => Promise<BridgeConfig>;
  /** How to serve: from the config's `server` section (`transportFromSettings`) or the flags. */
  transport: TransportOptions;
  log: Logger;
  /** Share tasks and paged outputs through this store (see `ServeOptions.store`). */
  store?: string;
  /** Rebuild the tools when the config or a file a source was built from changes. Default true. */
  watch?: boolean;
  /** Gives up the start while the sources load (see `ServeOptions.signal`). */
  signal?: AbortSignal;
}

/** A bridge serving a config, with hot reload. */
export interface ConfigBridge {
  bridge: RunningBridge;
  /**
   * Reads the config and its sources again and swaps the tools. Never throws: a broken edit is
   * logged and the previous tools stay. Resolves to whether the new tools are being served.
   */
  reload(): Promise<boolean>;
  /** Resolves when the server stops. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves a config (a file, or a shorthand command's one-source config): build the sources,
 * serve them, then watch the files they come from and reload on change.
 */
export async function serveConfig(options: ServeConfigOptions): Promise<ConfigBridge> {
  const { log } = options;
  let config = options.config;
  let sources = buildSources(config);
  // The config and every file its sources read are out of reach of the commands served (a CLI
  // source whose roots hold them could otherwise rewrite what the next reload serves). The config
  // now, since a client may call as soon as the transport runs, before `serve` returns; the
  // sources' files once they are loaded and known (`watchedFiles`, which has the config again).
  if (config.file) protectPaths([config.file]);
  const stateKey = requestStateKey(options.store !== undefined, log);
  const bridge = await serve({
    sources,
    transport: options.transport,
    log,
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(stateKey === undefined ? {} : { ask: { stateKey } }),
    ...(config.server.instructions === undefined ? {} : { instructions: config.server.instructions }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  warnAboutLargeTools(bridge.registry(), log);
  protectPaths(watchedFiles(config, sources));

  let watcher: FileWatcher | undefined;
  const reloadOnce = async (): Promise<boolean> => {
    const before = bridge.registry();
    let next: Source[] | undefined;
    try {
      // A file a command wrote for a tool call is not the user's edit: never applied (see
      // src/protected-paths.ts). Waits for running commands to end, so that none is mid-write.
      const running = commandsRunning();
      if (running > 0) log.info(`reloading once the ${running} command(s) running for tool calls end`);
      const changed = await commandThatChanged(watchedFiles(config, sources));
      if (changed) {
        throw new BridgeError(
          'load_failed',
          `${changed.file} was changed by a command run for a tool call (${changed.command}); a file the bridge reads to decide what it serves is never applied from there: check it, and restart the bridge to use it`,
        );
      }
      const nextConfig = options.reread ? await options.reread() : config;
      if (!isDeepStrictEqual(nextConfig.server, config.server)) {
        log.warn('the server settings changed; they take effect when the bridge is restarted');
      }
      next = buildSources(nextConfig);
      await bridge.reload(next);
      config = nextConfig;
      sources = next;
      protectPaths(watchedFiles(config, sources));
      log.info(`reloaded: ${summarizeChange(before, bridge.registry())}`);
      const renamed = renamedWarning(bridge.registry());
      if (renamed) log.warn(renamed);
      warnAboutLargeTools(bridge.registry(), log);
      return true;
    } catch (error) {
      for (const source of next ?? []) void source.close?.().catch(() => {});
      log.error(
        `reload failed; still serving the previous ${countOf(before.tools.length, 'tool')}. ${describeError(error)}`,
      );
      return false;
    } finally {
      watcher?.update(watchedFiles(config, sources));
    }
  };

  // One reload at a time; changes arriving meanwhile cause exactly one more.
  let running: Promise<boolean> | undefined;
  let again = false;
  const reload = (): Promise<boolean> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let ok: boolean;
      do {
        again = false;
        ok = await reloadOnce();
      } while (again);
      running = undefined;
      return ok;
    })();
    return running;
  };

  if (options.watch !== false) {
    watcher = watchFiles(
      watchedFiles(config, sources),
      (file) => {
        log.info(`${shortName(file)} changed; reloading`);
        void reload();
      },
      { onError: (error) => log.warn(`watching files for reload: ${describeError(error)}`) },
    );
  }
  const closed = bridge.closed.then(() => watcher?.close());
  return {
    bridge,
    reload,
    closed,
    async close() {
      watcher?.close();
      await bridge.close();
    },
  };
}

/** The transport the config's `server` section asks for. */
export function transportFromSettings(server: ServerSettings): TransportOptions {
  if (server.transport !== 'http') return { kind: 'stdio' };
  return {
    kind: 'http',
    address: { host: server.host ?? '127.0.0.1', port: server.port ?? 8080 },
    ...(server.allowedHosts ? { allowedHosts: server.allowedHosts } : {}),
    ...(server.allowedOrigins ? { allowedOrigins: server.allowedOrigins } : {}),
    ...(server.maxBodyBytes === undefined ? {} : { maxRequestBodySize: server.maxBodyBytes }),
    ...limitsFromSettings(server.limits),
  };
}

function limitsFromSettings(limits: ServerSettings['limits']) {
  if (!limits) return {};
  const { maxSessionsPerCaller, ...rest } = limits;
  return { limits: rest, ...(maxSessionsPerCaller === undefined ? {} : { maxSessionsPerCaller }) };
}

// "12 tools (added a, b; changed c; removed d)"
function summarizeChange(before: ToolRegistry, after: ToolRegistry): string {
  const added: string[] = [];
  const changed: string[] = [];
  for (const tool of after.tools) {
    const old = before.get(tool.name);
    if (!old) added.push(tool.name);
    else if (!sameTool(old.definition, tool.definition)) changed.push(tool.name);
  }
  const removed = before.tools.filter((tool) => !after.get(tool.name)).map((tool) => tool.name);
  const parts = [
    added.length > 0 ? `added ${added.join(', ')}` : '',
    changed.length > 0 ? `changed ${changed.join(', ')}` : '',
    removed.length > 0 ? `removed ${removed.join(', ')}` : '',
  ].filter(Boolean);
  return `${countOf(after.tools.length, 'tool')}${parts.length > 0 ? ` (${parts.join('; ')})` : ' (no change)'}`;
}

// What a client is told of a tool, and its settings: the functions (`invoke`, `preview`, `runs`)
// are made anew by every load, so a definition compared with them was never the same (the log
// called every OpenAPI tool changed on every reload).
function sameTool(a: RegisteredDefinition, b: RegisteredDefinition): boolean {
  return isDeepStrictEqual(dataOf(a), dataOf(b));
}

function dataOf(definition: RegisteredDefinition): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(definition)) if (typeof value !== 'function') data[key] = value;
  return data;
}

type RegisteredDefinition = ToolRegistry['tools'][number]['definition'];

/**
 * The key that seals 2026-07-28 question rounds (`input_required` request state), from
 * `BRIDGE_STATE_KEY`. Unset, each process draws its own: fine for one instance, but behind a load
 * balancer a retry that reaches another instance could not be opened there, so with a shared
 * store the bridge says so. Set without a store, it is not used (see `RequestStateOptions.key`),
 * and the bridge says that too.
 */
function requestStateKey(shared: boolean, log: Logger): string | undefined {
  const key = process.env.BRIDGE_STATE_KEY;
  if (key !== undefined && key !== '') {
    if (Buffer.byteLength(key) < 32) {
      throw new BridgeError(
        'invalid_input',
        `BRIDGE_STATE_KEY must be at least 32 bytes long (got ${Buffer.byteLength(key)}); e.g. the output of "openssl rand -base64 32"`,
      );
    }
    if (!shared) {
      log.warn(
        'BRIDGE_STATE_KEY is set but no shared store is (--store): it is not used. Without a store each process remembers alone which question rounds were answered, so it seals them with a key of its own (a round answered before a restart must not open again after it).',
      );
    }
    return key;
  }
  if (shared) {
    log.warn(
      'a shared store is set but BRIDGE_STATE_KEY is not: a 2026-07-28 client answering a question (confirmation, sign-in, roots) through another instance will be refused. Give every instance the same BRIDGE_STATE_KEY (at least 32 bytes).',
    );
  }
  return undefined;
}
