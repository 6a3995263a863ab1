import { randomBytes } from 'node:crypto';
import { BridgeError } from './errors.js';

/** A resource as clients list it. */
export interface StoredResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  /** Size in bytes of the content. */
  size: number;
}

/** What `resources/read` returns for one stored resource: text, or binary as base64. */
export type StoredContents =
  | { uri: string; mimeType: string; text: string }
  | { uri: string; mimeType: string; blob: string };

/** What an adapter hands the store: text, or raw bytes. */
export interface NewResource {
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  text?: string;
  bytes?: Uint8Array;
  /** Fixes the URI instead of generating one (used for the pages of one output). */
  uri?: string;
}

/**
 * Where large outputs live for a while so that clients can read them with `resources/read`.
 * Every entry expires after a TTL and belongs to the caller that created it; another caller cannot
 * read or list it. Memory is shared fairly: each quota key (the caller, or for anonymous HTTP its
 * peer address, see `quotaKeyOf`) has a byte quota, and a key over it loses its own oldest
 * entries, never another key's.
 *
 * Asynchronous, so that instances behind one endpoint can share a store (`RedisResourceStore`): a
 * page written through one is readable through the others. Any method may reject with a
 * `BridgeError` coded `unavailable` when a shared store cannot be reached.
 */
export interface ResourceStore {
  /** How long an entry lives, in milliseconds, for telling callers why a page has gone. */
  readonly ttlMs?: number;
  /**
   * Bytes one caller may hold at once (its oldest entries go first past it). An output larger than
   * this is kept only up to it, so that it cannot push out its own first pages.
   */
  readonly maxBytesPerCaller?: number;
  /**
   * Keeps `resource` for the store's TTL, readable and listed by `caller` only, its bytes counted
   * against `quotaKey` (default `caller`): an anonymous session's peer address, so that many
   * sessions from one address share one quota. Returns how it is listed.
   */
  put(resource: NewResource, caller: string, quotaKey?: string): Promise<StoredResource>;
  /** The contents behind `uri`, or `undefined` when unknown, expired, evicted or another caller's. */
  read(uri: string, caller: string): Promise<StoredContents | undefined>;
  /** Whether `read` would find `uri`, without fetching its contents. */
  has(uri: string, caller: string): Promise<boolean>;
  /** The live resources of `caller`, oldest first. */
  list(caller: string): Promise<StoredResource[]>;
  /** A fresh, unguessable id for naming a group of resources (e.g. the pages of one output). */
  newId(): string;
}

/**
 * `store` with every `put` counted against `quotaKey` unless it names one: what a tool context
 * hands its tool, so that whatever keeps the tool's output charges the call's quota key.
 */
export function chargedTo(store: ResourceStore, quotaKey: string): ResourceStore {
  return {
    ...(store.ttlMs === undefined ? {} : { ttlMs: store.ttlMs }),
    ...(store.maxBytesPerCaller === undefined ? {} : { maxBytesPerCaller: store.maxBytesPerCaller }),
    put: (resource, caller, key) => store.put(resource, caller, key ?? quotaKey),
    read: (uri, caller) => store.read(uri, caller),
    has: (uri, caller) => store.has(uri, caller),
    list: (caller) => store.list(caller),
    newId: () => store.newId(),
  };
}

export interface MemoryResourceStoreOptions {
  /** Total bytes kept, all callers together. Default 64 MiB. */
  maxBytes?: number;
  /**
   * Bytes one quota key may hold; its oldest entries go first when a new one does not fit. Default
   * a quarter of `maxBytes`. When the total is full, the key holding the most loses its oldest.
   */
  maxBytesPerCaller?: number;
  /** How long an entry lives, in milliseconds. Default 30 minutes. */
  ttlMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

interface Entry {
  resource: StoredResource;
  /** Who may read and list it. */
  caller: string;
  /** Whose quota its bytes count against. */
  quotaKey: string;
  expiresAt: number;
  text?: string;
  bytes?: Uint8Array;
}

/** What one caller, or one quota key, holds: its entries in insertion order, and their bytes. */
interface Holding {
  entries: Map<string, Entry>;
  bytes: number;
}

/** The URI scheme of everything the store holds. */
export const RESOURCE_URI_PREFIX = 'bridge://output/';

/** A fresh resource id: 96 random bits, URL-safe. */
export function newResourceId(): string {
  return randomBytes(12).toString('base64url');
}

/** How `resource` is listed once stored under `uri`. */
export function describeStored(resource: NewResource, uri: string): StoredResource {
  const size = resource.bytes ? resource.bytes.byteLength : Buffer.byteLength(resource.text ?? '');
  const stored: StoredResource = { uri, name: resource.name, mimeType: resource.mimeType, size };
  if (resource.title !== undefined) stored.title = resource.title;
  if (resource.description !== undefined) stored.description = resource.description;
  return stored;
}

/**
 * The in-memory `ResourceStore` of one process, with a byte cap per quota key and in all, and a
 * TTL; expiry is lazy, so it holds no timers.
 */
export class MemoryResourceStore implements ResourceStore {
  readonly #entries = new Map<string, Entry>();
  /** What each caller may list. */
  readonly #byCaller = new Map<string, Holding>();
  /** What each quota key is charged with: the quota and the eviction order go by these. */
  readonly #byQuota = new Map<string, Holding>();
  readonly #maxBytes: number;
  readonly maxBytesPerCaller: number;
  readonly ttlMs: number;
  readonly #now: () => number;
  #bytes = 0;

  constructor(options: MemoryResourceStoreOptions = {}) {
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.maxBytesPerCaller = options.maxBytesPerCaller ?? Math.floor(this.#maxBytes / 4);
    this.ttlMs = options.ttlMs ?? 30 * 60 * 1000;
    this.#now = options.now ?? Date.now;
  }

  newId(): string {
    return newResourceId();
  }

  async put(resource: NewResource, caller: string, quotaKey = caller): Promise<StoredResource> {
    const stored = describeStored(resource, resource.uri ?? `${RESOURCE_URI_PREFIX}${this.newId()}`);
    const { uri, size } = stored;
    refuseOversized(size, this.maxBytesPerCaller);
    this.#delete(uri);
    this.#sweep();
    // The key's own oldest go first; only then, when the total is full, the largest holder's.
    const own = this.#byQuota.get(quotaKey);
    while (own && own.bytes + size > this.maxBytesPerCaller && own.entries.size > 0) {
      this.#delete(own.entries.keys().next().value as string);
    }
    while (this.#bytes + size > this.#maxBytes && this.#entries.size > 0) {
      const largest = [...this.#byQuota.values()].reduce((a, b) => (b.bytes > a.bytes ? b : a));
      this.#delete(largest.entries.keys().next().value as string);
    }
    const entry: Entry = { resource: stored, caller, quotaKey, expiresAt: this.#now() + this.ttlMs };
    if (resource.bytes) entry.bytes = resource.bytes;
    else entry.text = resource.text ?? '';
    this.#entries.set(uri, entry);
    hold(this.#byCaller, caller, entry);
    hold(this.#byQuota, quotaKey, entry);
    this.#bytes += size;
    return stored;
  }

  async read(uri: string, caller: string): Promise<StoredContents | undefined> {
    const entry = this.#live(uri);
    if (!entry || entry.caller !== caller) return undefined;
    const { mimeType } = entry.resource;
    if (entry.bytes) return { uri, mimeType, blob: Buffer.from(entry.bytes).toString('base64') };
    return { uri, mimeType, text: entry.text ?? '' };
  }

  async has(uri: string, caller: string): Promise<boolean> {
    return this.#live(uri)?.caller === caller;
  }

  async list(caller: string): Promise<StoredResource[]> {
    this.#sweep();
    return [...(this.#byCaller.get(caller)?.entries.values() ?? [])].map((entry) => entry.resource);
  }

  /** Bytes currently held (for tests and benchmarks). */
  get bytes(): number {
    return this.#bytes;
  }

  #live(uri: string): Entry | undefined {
    const entry = this.#entries.get(uri);
    if (entry && entry.expiresAt <= this.#now()) {
      this.#delete(uri);
      return undefined;
    }
    return entry;
  }

  // Entries are kept in insertion order with one TTL, so the expired ones are at the front.
  #sweep(): void {
    const now = this.#now();
    for (const [uri, entry] of this.#entries) {
      if (entry.expiresAt > now) break;
      this.#delete(uri);
    }
  }

  #delete(uri: string): void {
    const entry = this.#entries.get(uri);
    if (!entry) return;
    this.#entries.delete(uri);
    this.#bytes -= entry.resource.size;
    release(this.#byCaller, entry.caller, entry);
    release(this.#byQuota, entry.quotaKey, entry);
  }
}

function hold(holdings: Map<string, Holding>, key: string, entry: Entry): void {
  let holding = holdings.get(key);
  if (!holding) {
    holding = { entries: new Map(), bytes: 0 };
    holdings.set(key, holding);
  }
  holding.entries.set(entry.resource.uri, entry);
  holding.bytes += entry.resource.size;
}

function release(holdings: Map<string, Holding>, key: string, entry: Entry): void {
  const holding = holdings.get(key);
  if (!holding?.entries.delete(entry.resource.uri)) return;
  holding.bytes -= entry.resource.size;
  if (holding.entries.size === 0) holdings.delete(key);
}

/**
 * Throws for an entry larger than one caller's outputs may hold: making room for it would drop all
 * else the caller holds, and it would still not fit.
 */
export function refuseOversized(size: number, maxBytesPerCaller: number): void {
  if (size <= maxBytesPerCaller) return;
  throw new BridgeError(
    'capacity',
    `the output is ${size} bytes, more than the ${maxBytesPerCaller} bytes one caller's outputs may hold; it was not kept. Ask for less (a narrower query or command).`,
  );
}
