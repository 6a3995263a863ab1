import { randomBytes } from 'node:crypto';

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
 * Memory is bounded (oldest entries are evicted first) and every entry expires after a TTL.
 * Entries belong to the caller that created them; another caller cannot read or list them.
 */
export interface ResourceStore {
  /** Keeps `resource` for the store's TTL and returns how it is listed. */
  put(resource: NewResource, caller: string): StoredResource;
  /** The contents behind `uri`, or `undefined` when unknown, expired, evicted or another caller's. */
  read(uri: string, caller: string): StoredContents | undefined;
  /** The live resources of `caller`, newest last. */
  list(caller: string): StoredResource[];
  /** A fresh, unguessable id for naming a group of resources (e.g. the pages of one output). */
  newId(): string;
}

export interface MemoryResourceStoreOptions {
  /** Total bytes kept; the oldest entries go first when a new one does not fit. Default 64 MiB. */
  maxBytes?: number;
  /** How long an entry lives, in milliseconds. Default 30 minutes. */
  ttlMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

interface Entry {
  resource: StoredResource;
  caller: string;
  expiresAt: number;
  text?: string;
  bytes?: Uint8Array;
}

/** The URI scheme of everything the store holds. */
export const RESOURCE_URI_PREFIX = 'bridge://output/';

/** An in-memory `ResourceStore` with a byte cap and a TTL; expiry is lazy, so it holds no timers. */
export class MemoryResourceStore implements ResourceStore {
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  #bytes = 0;

  constructor(options: MemoryResourceStoreOptions = {}) {
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#ttlMs = options.ttlMs ?? 30 * 60 * 1000;
    this.#now = options.now ?? Date.now;
  }

  newId(): string {
    return randomBytes(12).toString('base64url');
  }

  put(resource: NewResource, caller: string): StoredResource {
    const size = resource.bytes ? resource.bytes.byteLength : Buffer.byteLength(resource.text ?? '');
    const uri = resource.uri ?? `${RESOURCE_URI_PREFIX}${this.newId()}`;
    const stored: StoredResource = { uri, name: resource.name, mimeType: resource.mimeType, size };
    if (resource.title !== undefined) stored.title = resource.title;
    if (resource.description !== undefined) stored.description = resource.description;
    this.#delete(uri);
    this.#sweep();
    while (this.#bytes + size > this.#maxBytes && this.#entries.size > 0) {
      const oldest = this.#entries.keys().next().value as string;
      this.#delete(oldest);
    }
    const entry: Entry = { resource: stored, caller, expiresAt: this.#now() + this.#ttlMs };
    if (resource.bytes) entry.bytes = resource.bytes;
    else entry.text = resource.text ?? '';
    this.#entries.set(uri, entry);
    this.#bytes += size;
    return stored;
  }

  read(uri: string, caller: string): StoredContents | undefined {
    const entry = this.#live(uri);
    if (!entry || entry.caller !== caller) return undefined;
    const { mimeType } = entry.resource;
    if (entry.bytes) return { uri, mimeType, blob: Buffer.from(entry.bytes).toString('base64') };
    return { uri, mimeType, text: entry.text ?? '' };
  }

  list(caller: string): StoredResource[] {
    this.#sweep();
    return [...this.#entries.values()]
      .filter((entry) => entry.caller === caller)
      .map((entry) => entry.resource);
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
  }
}
