import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * Where the page after the opaque `cursor` (the offset, base64url-encoded) starts and ends in a
 * list of `length` entries, and the next page's cursor; undefined when the cursor is unreadable.
 */
export function pageBounds(
  length: number,
  cursor: string | undefined,
  pageSize: number,
): { start: number; end: number; nextCursor: string | undefined } | undefined {
  let start = 0;
  if (cursor !== undefined) {
    start = Number.parseInt(Buffer.from(cursor, 'base64url').toString('utf8'), 10);
    if (!Number.isSafeInteger(start) || start < 0 || start > length) return undefined;
  }
  const end = Math.min(length, start + pageSize);
  const nextCursor = end < length ? Buffer.from(String(end), 'utf8').toString('base64url') : undefined;
  return { start, end, nextCursor };
}

/**
 * What a list is paged from: an array, or a view that makes only the entries a page asks for.
 */
export type Pageable<T> = Pick<readonly T[], 'length' | 'slice'>;

/** One page of `all` after `cursor` (see `pageBounds`). An unreadable cursor is the client's error: -32602. */
export function paginate<T>(all: Pageable<T>, cursor: string | undefined, pageSize: number) {
  const bounds = pageBounds(all.length, cursor, pageSize);
  if (!bounds) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor: "${cursor}"`);
  return { items: all.slice(bounds.start, bounds.end), nextCursor: bounds.nextCursor };
}

/** One page as a list result: `{[key]: items}`, plus `nextCursor` when more follow. */
export function listPage<K extends string, T>(key: K, all: Pageable<T>, cursor: string | undefined) {
  const { items, nextCursor } = paginate(all, cursor, PAGE_SIZE);
  return { [key]: items, ...(nextCursor === undefined ? {} : { nextCursor }) } as { [P in K]: T[] } & {
    nextCursor?: string;
  };
}

/** Entries per page of every list the server answers. */
export const PAGE_SIZE = 500;
