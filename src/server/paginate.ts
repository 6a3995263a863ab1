import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * One page of `all` after the opaque `cursor` (the offset, base64url-encoded). An unreadable
 * cursor is the client's error: -32602.
 */
export function paginate<T>(all: readonly T[], cursor: string | undefined, pageSize: number) {
  let start = 0;
  if (cursor !== undefined) {
    start = Number.parseInt(Buffer.from(cursor, 'base64url').toString('utf8'), 10);
    if (!Number.isSafeInteger(start) || start < 0 || start > all.length) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor: "${cursor}"`);
    }
  }
  const end = start + pageSize;
  const items = all.slice(start, end);
  const nextCursor = end < all.length ? Buffer.from(String(end), 'utf8').toString('base64url') : undefined;
  return { items, nextCursor };
}

/** One page as a list result: `{[key]: items}`, plus `nextCursor` when more follow. */
export function listPage<K extends string, T>(key: K, all: readonly T[], cursor: string | undefined) {
  const { items, nextCursor } = paginate(all, cursor, PAGE_SIZE);
  return { [key]: items, ...(nextCursor === undefined ? {} : { nextCursor }) } as { [P in K]: T[] } & {
    nextCursor?: string;
  };
}

/** Entries per page of every list the server answers. */
export const PAGE_SIZE = 500;
