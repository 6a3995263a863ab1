import { createHash } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { quote } from '../quote-input.js';
import type { ToolRegistry } from '../registry.js';

// A cursor is opaque to clients: the offset of the next page and the version of the entries before
// it (see `listVersion`), base64url-encoded. An offset alone would page on through a list that
// changed in between (a reload adds, removes or renames tools; stored outputs expire), and skip or
// repeat entries without a word. A cursor is taken while the entries its client has seen stand as
// they were, whatever changed after them (the rest of the list is then exactly what follows), and
// refused otherwise.

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

/**
 * The version of the first `end` entries of a list whose keys `keys()` gives (asked once), each
 * made once: what `pageBounds` takes.
 */
export function prefixVersions(keys: () => readonly string[]): (end: number) => string {
  let all: readonly string[] | undefined;
  const made = new Map<number, string>();
  return (end) => {
    let version = made.get(end);
    if (version === undefined) {
      all ??= keys();
      version = listVersion(all.slice(0, end));
      made.set(end, version);
    }
    return version;
  };
}

const toolsVersions = new WeakMap<ToolRegistry, (end: number) => string>();

/** The version of the first `end` tools of `registry`'s list (see `prefixVersions`). */
export function toolsVersion(registry: ToolRegistry, end: number): string {
  let versions = toolsVersions.get(registry);
  if (versions === undefined) {
    versions = prefixVersions(() => registry.tools.map((tool) => tool.name));
    toolsVersions.set(registry, versions);
  }
  return versions(end);
}

/** Where a page starts and ends in its list, and the next page's cursor (none after the last). */
export interface PageBounds {
  start: number;
  end: number;
  nextCursor: string | undefined;
}

/**
 * Why a cursor is refused: `unreadable` when this server did not issue it (garbled, forged),
 * `stale` when the entries before its offset are no longer what they were (or the list is now
 * shorter than the offset), or it was issued for another list (a tools cursor sent to resources/list).
 */
export type CursorFault = 'unreadable' | 'stale';

/**
 * Where the page after the opaque `cursor` starts and ends in a list of `length` entries, whose
 * first `end` entries have the version `version(end)` (asked only when a cursor is read or made),
 * or why the cursor is refused. A page holds `pageSize` entries, or up to `endOf(start)` when
 * given (see `toolsPageEnd`).
 */
export function pageBounds(
  length: number,
  cursor: string | undefined,
  pageSize: number,
  version: (end: number) => string,
  endOf?: (start: number) => number,
): PageBounds | CursorFault {
  const start = pageStart(length, cursor, version);
  if (typeof start === 'string') return start;
  const end = endOf ? endOf(start) : Math.min(length, start + pageSize);
  return { start, end, nextCursor: nextCursorAt(end, length, version) };
}

/** Where the page after `cursor` starts (0 without one), or why the cursor is refused (see `pageBounds`). */
export function pageStart(
  length: number,
  cursor: string | undefined,
  version: (end: number) => string,
): number | CursorFault {
  if (cursor === undefined) return 0;
  const read = readCursor(cursor);
  if (!read) return 'unreadable';
  if (read.offset > length || read.version !== version(read.offset)) return 'stale';
  return read.offset;
}

/** The cursor of the page starting at `end`, undefined when the list ends there. */
export function nextCursorAt(
  end: number,
  length: number,
  version: (end: number) => string,
): string | undefined {
  return end < length ? Buffer.from(`${end}.${version(end)}`, 'latin1').toString('base64url') : undefined;
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
  version: (end: number) => string,
  endOf?: (start: number) => number,
) {
  const bounds = pageBounds(all.length, cursor, pageSize, version, endOf);
  if (typeof bounds === 'string') throw cursorRefused(key, cursor as string, bounds);
  return { items: all.slice(bounds.start, bounds.end), nextCursor: bounds.nextCursor };
}

/**
 * One page as a list result: `{[key]: items}`, plus `nextCursor` when more follow. `version(end)`
 * gives the version of the first `end` entries of `all` (see `prefixVersions`); `endOf(start)`,
 * where a page starting at `start` ends, when not after `PAGE_SIZE` entries.
 */
export function listPage<K extends string, T>(
  key: K,
  all: Pageable<T>,
  cursor: string | undefined,
  version: (end: number) => string,
  endOf?: (start: number) => number,
) {
  const { items, nextCursor } = paginate(key, all, cursor, PAGE_SIZE, version, endOf);
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
