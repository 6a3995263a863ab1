import type { Logger } from '../logger.js';
import {
  describeStored,
  type NewResource,
  newResourceId,
  RESOURCE_URI_PREFIX,
  type ResourceStore,
  refuseOversized,
  type StoredContents,
  type StoredResource,
} from '../resource-store.js';
import { type RedisConnection, readTolerant } from './redis-connection.js';

export interface RedisResourceStoreOptions {
  /** How long an entry lives (Redis expires it). Default 30 minutes. */
  ttlMs?: number;
  /** Bytes one quota key (the caller, or an anonymous client's address) may hold; its oldest go first. Default 16 MiB. */
  maxBytesPerCaller?: number;
}

// One entry: a hash {caller, quota, meta (the listing, JSON), kind (text|blob), body}, expiring
// with the TTL. `of:<caller>` is a sorted set of what a caller may list, by time; the quota goes by
// quota key (an anonymous session's peer address, else the caller): `of:<quota key>` orders what
// counts against it, oldest first, and `sizes:<quota key>` keeps their sizes, whose field 'total'
// keeps their sum (URIs all start with bridge://), so that a put does not add up every size. For
// an authenticated caller both `of:` keys are one. KEYS: entry, caller's index, quota key's index,
// quota key's sizes. ARGV: uri, now, ttl, size, quota, caller, meta, kind, body, key prefix, quota key.
const PUT = `
local foreign = 0
for i, expected in ipairs({'hash', 'zset', 'zset', 'hash'}) do
  local t = redis.call('TYPE', KEYS[i]).ok
  if t ~= 'none' and t ~= expected then redis.call('DEL', KEYS[i]); foreign = 1 end
end
local uri, now, ttl, size, quota = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local prefix, key = ARGV[10], ARGV[11]
local total = tonumber(redis.call('HGET', KEYS[4], 'total'))
if not total then
  -- Written before the sum was kept, or damaged: add it up once.
  total = 0
  local held = redis.call('HGETALL', KEYS[4])
  for i = 1, #held, 2 do
    if held[i] ~= 'total' then total = total + (tonumber(held[i + 1]) or 0) end
  end
end
local function drop(old)
  total = total - (tonumber(redis.call('HGET', KEYS[4], old)) or 0)
  redis.call('HDEL', KEYS[4], old)
end
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - ttl)) do drop(old) end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - ttl)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - ttl)
-- The same URI written again replaces its entry, wherever that one was listed and counted.
local previous = redis.call('HMGET', KEYS[1], 'caller', 'quota')
if previous[1] then redis.pcall('ZREM', prefix .. 'of:' .. previous[1], uri) end
local was = previous[2] or previous[1]
if was and was ~= key then
  redis.pcall('ZREM', prefix .. 'of:' .. was, uri)
  local sizes = prefix .. 'sizes:' .. was
  local held = tonumber(redis.pcall('HGET', sizes, uri))
  if held then
    redis.pcall('HDEL', sizes, uri)
    if redis.pcall('HEXISTS', sizes, 'total') == 1 then redis.pcall('HINCRBY', sizes, 'total', -held) end
  end
end
redis.call('ZREM', KEYS[3], uri)
drop(uri)
-- Over the quota: the key's own oldest go, whichever of its callers (sessions) wrote them.
while total + size > quota do
  local oldest = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  if not oldest then break end
  drop(oldest)
  redis.call('ZREM', KEYS[3], oldest)
  local owner = redis.pcall('HGET', prefix .. oldest, 'caller')
  if type(owner) == 'string' then redis.pcall('ZREM', prefix .. 'of:' .. owner, oldest) end
  redis.call('DEL', prefix .. oldest)
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'caller', ARGV[6], 'quota', key, 'meta', ARGV[7], 'kind', ARGV[8], 'body', ARGV[9])
redis.call('PEXPIRE', KEYS[1], ttl)
-- Scores are the write time, kept strictly increasing per index so that entries written within
-- one millisecond still list in the order they were written (ties would sort by their random URIs).
local score = now
for i = 2, 3 do
  local newest = redis.call('ZREVRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  if newest[2] and tonumber(newest[2]) >= score then score = tonumber(newest[2]) + 1 end
end
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], score, uri)
  redis.call('PEXPIRE', KEYS[i], ttl)
end
redis.call('HSET', KEYS[4], uri, size, 'total', total + size)
redis.call('PEXPIRE', KEYS[4], ttl)
return foreign
`;

/**
 * The `ResourceStore` in Redis, shared by every bridge instance on it: a page written through one
 * is readable through the others. Redis does the expiry; each quota key has a byte quota (its own
 * oldest entries go first), so one caller's outputs, or one address's sessions', cannot push out
 * everyone else's. A value under
 * our keys that we did not write is ignored with a warning.
 */
export class RedisResourceStore implements ResourceStore {
  readonly #redis: RedisConnection;
  readonly #log: Logger;
  readonly #prefix: string;
  readonly ttlMs: number;
  readonly maxBytesPerCaller: number;

  constructor(redis: RedisConnection, log: Logger, options: RedisResourceStoreOptions = {}) {
    this.#redis = redis;
    this.#log = log;
    this.#prefix = `${redis.address.namespace}:res:`;
    this.ttlMs = options.ttlMs ?? 30 * 60_000;
    this.maxBytesPerCaller = options.maxBytesPerCaller ?? 16 * 1024 * 1024;
  }

  newId(): string {
    return newResourceId();
  }

  async put(resource: NewResource, caller: string, quotaKey = caller): Promise<StoredResource> {
    const stored = describeStored(resource, resource.uri ?? `${RESOURCE_URI_PREFIX}${this.newId()}`);
    refuseOversized(stored.size, this.maxBytesPerCaller);
    const [kind, body] = resource.bytes
      ? ['blob', Buffer.from(resource.bytes).toString('base64')]
      : ['text', resource.text ?? ''];
    const foreign = await this.#redis.run((client) =>
      client.sendCommand([
        'EVAL',
        PUT,
        '4',
        this.#prefix + stored.uri,
        `${this.#prefix}of:${caller}`,
        `${this.#prefix}of:${quotaKey}`,
        `${this.#prefix}sizes:${quotaKey}`,
        stored.uri,
        String(Date.now()),
        String(this.ttlMs),
        String(stored.size),
        String(this.maxBytesPerCaller),
        caller,
        JSON.stringify(stored),
        kind,
        body,
        this.#prefix,
        quotaKey,
      ]),
    );
    if (Number(foreign) === 1) {
      this.#log.warn(`store: replaced values under ${this.#prefix}…${caller} that this bridge did not write`);
    }
    return stored;
  }

  async read(uri: string, caller: string): Promise<StoredContents | undefined> {
    const entry = await this.#entry(uri);
    if (!entry || entry.caller !== caller) return undefined;
    const { mimeType } = entry.meta;
    return entry.kind === 'blob' ? { uri, mimeType, blob: entry.body } : { uri, mimeType, text: entry.body };
  }

  async has(uri: string, caller: string): Promise<boolean> {
    if (!uri.startsWith(RESOURCE_URI_PREFIX)) return false;
    const owner = await readTolerant(this.#redis, this.#log, this.#prefix + uri, (client) =>
      client.hGet(this.#prefix + uri, 'caller'),
    );
    return owner === caller;
  }

  async list(caller: string): Promise<StoredResource[]> {
    const uris = (await readTolerant(this.#redis, this.#log, `${this.#prefix}of:${caller}`, (client) =>
      client.sendCommand([
        'ZRANGEBYSCORE',
        `${this.#prefix}of:${caller}`,
        String(Date.now() - this.ttlMs),
        '+inf',
      ]),
    )) as string[] | undefined;
    if (!uris) return [];
    const metas = await this.#redis.run((client) =>
      // A foreign value (WRONGTYPE) under one of the keys leaves just that entry out.
      Promise.all(
        uris.map((uri) =>
          client.sendCommand(['HMGET', this.#prefix + uri, 'caller', 'meta']).catch(() => null),
        ),
      ),
    );
    const listed: StoredResource[] = [];
    metas.forEach((reply, index) => {
      const [owner, meta] = (Array.isArray(reply) ? reply : []) as Array<string | null>;
      if (owner !== caller || typeof meta !== 'string') return;
      const parsed = this.#meta(meta, uris[index] as string);
      if (parsed) listed.push(parsed);
    });
    return listed;
  }

  async #entry(uri: string) {
    if (!uri.startsWith(RESOURCE_URI_PREFIX)) return undefined;
    const fields: Record<string, string | undefined> =
      (await readTolerant(this.#redis, this.#log, this.#prefix + uri, (client) =>
        client.hGetAll(this.#prefix + uri),
      )) ?? {};
    if (Object.keys(fields).length === 0) return undefined;
    const meta = fields.meta === undefined ? undefined : this.#meta(fields.meta, uri);
    if (
      !meta ||
      typeof fields.caller !== 'string' ||
      typeof fields.body !== 'string' ||
      (fields.kind !== 'text' && fields.kind !== 'blob')
    ) {
      this.#log.warn(`store: ignoring a value under ${this.#prefix}${uri} that this bridge did not write`);
      return undefined;
    }
    return { caller: fields.caller, meta, kind: fields.kind, body: fields.body };
  }

  #meta(text: string, uri: string): StoredResource | undefined {
    try {
      const meta = JSON.parse(text) as StoredResource;
      if (
        meta.uri === uri &&
        typeof meta.name === 'string' &&
        typeof meta.mimeType === 'string' &&
        typeof meta.size === 'number'
      ) {
        return meta;
      }
    } catch {}
    this.#log.warn(`store: ignoring a corrupt listing under ${this.#prefix}${uri}`);
    return undefined;
  }
}
