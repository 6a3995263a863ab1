import { mebibytes } from './count-of.js';
import type { ResourceStore } from './resource-store.js';
import { RESOURCE_URI_PREFIX } from './resource-store.js';
import type { ContentBlock } from './tool.js';

/** The URI template under which pages of a long output can be read. */
export const PAGE_URI_TEMPLATE = `${RESOURCE_URI_PREFIX}{id}/page/{page}`;

export interface PageOutputOptions {
  /** The store that keeps the pages after the first. */
  store: ResourceStore;
  /** Who may read the pages back. */
  caller: string;
  /** Characters per page. Default 20,000 (about 5,000 tokens). */
  pageSize?: number;
  /** The pages' MIME type. Default `text/plain`. */
  mimeType?: string;
  /** What the output is, for the pages' names, e.g. `git log stdout`. */
  label?: string;
  /** At most this many `resource_link`s are listed; the rest are named through the URI template. */
  maxLinks?: number;
}

/** The first page of a long text and the links to the rest. */
export interface PagedOutput {
  /** The first page (the whole text when it fits). */
  firstPage: string;
  /** `resource_link` blocks to pages 2…N, plus a text note saying how to read them. Empty when it fits. */
  links: ContentBlock[];
  /** Number of pages in all. */
  pages: number;
  /** Whether the text was cut into pages. */
  truncated: boolean;
}

/**
 * Cuts `text` into pages of about `pageSize` characters, preferring to cut after a newline, keeps
 * pages 2…N in the store and returns the first page with links to the others. Concatenating all
 * pages in order gives back `text` exactly. Rejects when the store cannot keep the pages.
 */
export async function pageOutput(text: string, options: PageOutputOptions): Promise<PagedOutput> {
  const pageSize = options.pageSize ?? 20_000;
  if (text.length <= pageSize) return { firstPage: text, links: [], pages: 1, truncated: false };
  const pages = splitPages(text, pageSize);
  const id = options.store.newId();
  const label = options.label ?? 'output';
  const mimeType = options.mimeType ?? 'text/plain';
  const maxLinks = options.maxLinks ?? 10;
  const links: ContentBlock[] = [];
  const kept = pagesThatFit(pages, options.store.maxBytesPerCaller);
  // Stored in parallel: with a shared store each put is a round trip.
  const stored = await Promise.all(
    pages.slice(1, kept).map((page, index) => {
      const uri = `${RESOURCE_URI_PREFIX}${id}/page/${index + 2}`;
      const name = `${label} (page ${index + 2} of ${pages.length})`;
      return options.store.put({ uri, name, mimeType, text: page }, options.caller);
    }),
  );
  for (const { uri, name, size } of stored.slice(0, maxLinks)) {
    links.push({ type: 'resource_link', uri, name, mimeType, size });
  }
  const dropped =
    kept < pages.length
      ? ` Pages ${kept + 1}…${pages.length} were not kept: one caller's outputs may hold ${mebibytes(options.store.maxBytesPerCaller ?? 0)} at once; narrow the command or query to see them.`
      : '';
  const readable =
    kept > 1
      ? `Read the rest with resources/read on ${RESOURCE_URI_PREFIX}${id}/page/N for N = 2…${kept}.`
      : 'No further page was kept.';
  const note = `[${label} continues: page 1 of ${pages.length} shown (${text.length} characters in all). ${readable}${dropped}]`;
  return {
    firstPage: pages[0] ?? '',
    links: [{ type: 'text', text: note }, ...links],
    pages: pages.length,
    truncated: true,
  };
}

// How many leading pages (the first one included, which is not stored) the store keeps together:
// pages 2…N up to what one caller may hold, so that none pushes out an earlier page of its own.
function pagesThatFit(pages: string[], maxBytes: number | undefined): number {
  if (maxBytes === undefined) return pages.length;
  let bytes = 0;
  for (let index = 1; index < pages.length; index++) {
    bytes += Buffer.byteLength(pages[index] as string);
    if (bytes > maxBytes) return index;
  }
  return pages.length;
}

/** Cuts `text` into pages, after the last newline in a page's second half, else at its size. */
function splitPages(text: string, pageSize: number): string[] {
  const pages: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + pageSize, text.length);
    if (end < text.length) {
      const newline = lastNewline(text, start + Math.ceil(pageSize * 0.5), end);
      if (newline >= 0) end = newline + 1;
      else if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    }
    pages.push(text.slice(start, end));
    start = end;
  }
  return pages;
}

// The last newline in text[from, to), or -1. Bounded by the page: `lastIndexOf` would scan back to
// the start of a text without newlines (compact JSON) for every page, quadratic in its length.
function lastNewline(text: string, from: number, to: number): number {
  for (let index = to - 1; index >= from; index--) if (text.charCodeAt(index) === 10) return index;
  return -1;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
