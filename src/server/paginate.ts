import { createHash } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { quote } from '../quote-input.js';
import type { ToolRegistry } from '../registry.js';

// A cursor is opaque to clients: the offset of the next page and the version of the list it was
// issued for (see `listVersion`), base64url-encoded. An offset alone would page on through a list
// that changed in between (a reload adds, removes or renames tools; stored outputs expire), and
// skip or repeat entries without a word: a cursor from an earlier version is refused instead.

/**
 * The version of a list that its cursors carry: a digest of its entries' keys (tool names, URIs)
 * in listing order, so any change that moves an entry changes it. The same list has the same
 * version in every process: a 2026-07-28 client, which has no session, may page across a restart
 * or across replicas serving the same tools.
 */
export function listVersion(keys: readonly string[]): string {
  // One JSON string keeps the keys apart and hashes in one call (1,223 tool names: ~0.1 ms).
  return createHash('sha256').update(JSON.stringify(keys)).digest('base64url').slice(0, VERSION_CHARS);
}

/** Characters of a version: 96 bits of the digest. */
const VERSION_CHARS = 16;

const toolsVersions = new WeakMap<ToolRegistry, string>();

/** The version of `registry`'s tool list (see `listVersion`), made on its first paged list. */
export function toolsVersion(registry: ToolRegistry): string {
  let version = toolsVersions.get(registry);
  if (version === undefined) {
    version = listVersion(registry.tools.map((tool) => tool.name));
    toolsVersions.set(registry, version);
  }
  return version;
}

/** Where a page starts and ends in its list, and the next page's cursor (none after the last). */
export interface PageBounds {
  start: number;
  end: number;
  nextCursor: string | undefined;
}

/**
 * Why a cursor is refused: `unreadable` when this server did not issue it (garbled, forged, an
 * offset past the end), `stale` when its version is not the list's: issued for an earlier version
 * of it, or for another list (a tools cursor sent to resources/list).
 */
export type CursorFault = 'unreadable' | 'stale';

/**
 * Where the page after the opaque `cursor` starts and ends in a list of `length` entries whose
 * version is `version()` (asked at most once, and only when a cursor is read or made), or why the
 * cursor is refused.
 */
export function pageBounds(
  length: number,
  cursor: string | undefined,
  pageSize: number,
  version: () => string,
): PageBounds | CursorFault {
  let known: string | undefined;
  const current = () => (known ??= version());
  let start = 0;
  if (cursor !== undefined) {
    const read = readCursor(cursor);
    if (!read) return 'unreadable';
    if (read.version !== current()) return 'stale';
    if (read.offset > length) return 'unreadable';
    start = read.offset;
  }
  const end = Math.min(length, start + pageSize);
  const nextCursor =
    end < length ? Buffer.from(`${end}.${current()}`, 'latin1').toString('base64url') : undefined;
  return { start, end, nextCursor };
}

function readCursor(cursor: string): { offset: number; version: string } | undefined {
  if (cursor.length > MAX_CURSOR_CHARS) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  // Decoding skips characters outside the alphabet: only the spelling this server writes is read.
  if (Buffer.from(text, 'latin1').toString('base64url') !== cursor) return undefined;
  const match = CURSOR_TEXT.exec(text);
  if (!match) return undefined;
  return { offset: Number(match[1]), version: match[2] as string };
}

const CURSOR_TEXT = new RegExp(`^(0|[1-9]\\d{0,14})\\.([A-Za-z0-9_-]{${VERSION_CHARS}})$`);
/** Longer than any cursor this server writes. */
const MAX_CURSOR_CHARS = 64;

/**
 * What a list is paged from: an array, or a view that makes only the entries a page asks for.
 */
export type Pageable<T> = Pick<readonly T[], 'length' | 'slice'>;

/**
 * One page of the `key` list `all` after `cursor` (see `pageBounds`). A refused cursor is the
 * client's error: -32602, saying what to do.
 */
export function paginate<T>(
  key: string,
  all: Pageable<T>,
  cursor: string | undefined,
  pageSize: number,
  version: () => string,
) {
  const bounds = pageBounds(all.length, cursor, pageSize, version);
  if (typeof bounds === 'string') throw cursorRefused(key, cursor as string, bounds);
  return { items: all.slice(bounds.start, bounds.end), nextCursor: bounds.nextCursor };
}

/**
 * One page as a list result: `{[key]: items}`, plus `nextCursor` when more follow. `version`
 * gives the version of `all` (see `listVersion`).
 */
export function listPage<K extends string, T>(
  key: K,
  all: Pageable<T>,
  cursor: string | undefined,
  version: () => string,
) {
  const { items, nextCursor } = paginate(key, all, cursor, PAGE_SIZE, version);
  return { [key]: items, ...(nextCursor === undefined ? {} : { nextCursor }) } as { [P in K]: T[] } & {
    nextCursor?: string;
  };
}

function cursorRefused(key: string, cursor: string, fault: CursorFault): ProtocolError {
  if (fault === 'stale') {
    return new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `The cursor is from an earlier ${key} list: the ${key} have changed since it was issued. List again from the start, without a cursor.`,
    );
  }
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid cursor ${quote(cursor)}: not one this server issued for ${key}/list. Send back a nextCursor exactly as received, or list from the start without a cursor.`,
  );
}

/** Entries per page of every list the server answers. */
export const PAGE_SIZE = 500;
