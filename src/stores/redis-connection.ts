import { createClient, type RedisClientType } from '@redis/client';
import { BridgeError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';

/** Environment variables holding the store's credentials: never in the URL, which shows in `ps` and configs. */
export const STORE_PASSWORD_ENV = 'BRIDGE_STORE_PASSWORD';
export const STORE_USERNAME_ENV = 'BRIDGE_STORE_USERNAME';

/** A parsed `redis://HOST:PORT/DB` store URL. */
export interface StoreAddress {
  url: string;
  /** The URL as logs and errors show it. */
  label: string;
  database: number;
  tls: boolean;
  /** Prefix of every key and channel, so that several bridges (or apps) can share one Redis. */
  namespace: string;
}

/**
 * Parses a store URL: `redis://HOST[:PORT][/DB][?namespace=NAME]` (or `rediss://` for TLS).
 * Credentials in the URL are refused: they belong in `BRIDGE_STORE_USERNAME`/`BRIDGE_STORE_PASSWORD`.
 */
export function parseStoreUrl(raw: string): StoreAddress {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BridgeError('invalid_input', `--store: "${raw}" is not a URL; expected redis://HOST:PORT/DB`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new BridgeError(
      'invalid_input',
      `--store: unsupported scheme "${url.protocol}"; expected redis://HOST:PORT/DB (or rediss:// for TLS)`,
    );
  }
  if (url.username || url.password) {
    throw new BridgeError(
      'invalid_input',
      `--store: put no credentials in the store URL (it shows in process lists and config files); set ${STORE_USERNAME_ENV} and ${STORE_PASSWORD_ENV} instead`,
    );
  }
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,2}$/.test(db)) {
    throw new BridgeError('invalid_input', `--store: the database "${db}" in ${raw} is not a number 0-99`);
  }
  const namespace = url.searchParams.get('namespace') ?? 'bridge';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(namespace)) {
    throw new BridgeError(
      'invalid_input',
      `--store: namespace "${namespace}" must be 1-64 of A-Z a-z 0-9 _ . -`,
    );
  }
  const label = `${url.protocol}//${url.host}/${db || '0'}`;
  return { url: label, label, database: Number(db || 0), tls: url.protocol === 'rediss:', namespace };
}

/** One connection for commands and one for subscriptions (a subscribed connection can do nothing else). */
export interface RedisConnection {
  address: StoreAddress;
  commands: RedisClientType;
  subscriber: RedisClientType;
  /** Runs `operation`, turning a lost or refused connection into a `BridgeError` coded `unavailable`. */
  run<T>(operation: (client: RedisClientType) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Connects to the store. Fails at once (no retry) when Redis cannot be reached at start; once
 * connected, a lost connection is retried in the background while commands fail fast with a clear
 * error instead of queueing, and everything works again when Redis is back.
 */
export async function connectRedis(
  address: StoreAddress,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RedisConnection> {
  let started = false;
  let down = false;
  const commands = createClient({
    url: address.url,
    ...(env[STORE_USERNAME_ENV] ? { username: env[STORE_USERNAME_ENV] } : {}),
    ...(env[STORE_PASSWORD_ENV] ? { password: env[STORE_PASSWORD_ENV] } : {}),
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 5_000,
      reconnectStrategy: (retries: number, cause: Error) =>
        started ? Math.min(50 * 2 ** retries, 2_000) : cause,
    },
  }) as RedisClientType;
  commands.on('error', (error: Error) => {
    if (started && !down) log.error(`lost the store ${address.label}: ${describeError(error)}; retrying`);
    if (started) down = true;
  });
  commands.on('ready', () => {
    if (down) log.info(`the store ${address.label} is back`);
    down = false;
  });
  const subscriber = commands.duplicate() as RedisClientType;
  subscriber.on('error', () => {});
  try {
    await commands.connect();
    await subscriber.connect();
  } catch (error) {
    await Promise.allSettled([commands.destroy(), subscriber.destroy()]);
    throw new BridgeError(
      'unavailable',
      `cannot reach the store ${address.label}: ${describeError(error)}. Start Redis there, or fix --store / server.store.`,
      { cause: error },
    );
  }
  started = true;
  return {
    address,
    commands,
    subscriber,
    async run(operation) {
      try {
        return await operation(commands);
      } catch (error) {
        const text = `${(error as Error)?.name} ${(error as Error)?.message}`;
        if (commands.isReady && !/offline|socket|connect|closed/i.test(text)) throw error;
        throw new BridgeError(
          'unavailable',
          `The shared store ${address.label} is unreachable (${describeError(error)}); try again shortly.`,
          { cause: error },
        );
      }
    },
    async close() {
      started = false;
      await Promise.allSettled([commands.close(), subscriber.close()]);
    },
  };
}

/** A flat `[field, value, …]` reply (as `HGETALL` gives it from a script) as an object. */
export function pairs(reply: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(reply)) return out;
  for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1]);
  return out;
}

/**
 * Runs a read of `key`. A key of another type under our prefix (WRONGTYPE) is someone else's
 * value: warned about, and read as absent (`undefined`).
 */
export async function readTolerant<T>(
  redis: RedisConnection,
  log: Logger,
  key: string,
  read: (client: RedisClientType) => Promise<T>,
): Promise<T | undefined> {
  try {
    return await redis.run(read);
  } catch (error) {
    if (!/WRONGTYPE/.test(String((error as Error)?.message))) throw error;
    log.warn(`store: ignoring a value under ${key} that this bridge did not write`);
    return undefined;
  }
}
