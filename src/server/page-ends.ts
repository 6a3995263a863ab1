import type { RegisteredTool, ToolRegistry } from '../registry.js';
import { keptParts, listEntry } from './list-entry.js';
import { PAGE_SIZE } from './paginate.js';

/**
 * Most bytes of tool entries one `tools/list` page carries (the entries and the commas between
 * them; a tool larger than this alone makes a page of its own). The MCP SDK clients' stdio reader
 * drops the connection on a message over 10 MiB, and DocuSign's 402 tools had made one page of
 * 21 MB; GitHub's 1,223 make three of ~0.5 MB, as before.
 */
export const MAX_PAGE_BYTES = 4 * 2 ** 20;

// Per registry: where each page asked for so far ends, by its start. Every path that lists a
// registry's tools (the SDK's handler, the lanes) pages it at the same places.
const pageEnds = new WeakMap<ToolRegistry, Map<number, number>>();

/**
 * Where the `tools/list` page of `registry` starting at `start` ends: after `PAGE_SIZE` tools, or
 * before the tool that would take its entries past `MAX_PAGE_BYTES`, counted as `listEntry` writes
 * them for a client since 2025-06-18 (older clients' entries differ by where the title is, so the
 * places do not depend on who lists). Measured once per registry and start.
 */
export function toolsPageEnd(registry: ToolRegistry, start: number): number {
  const known = knownPageEnd(registry, start);
  if (known !== undefined) return known;
  const limit = Math.min(registry.tools.length, start + PAGE_SIZE);
  let bytes = 0;
  let end = start;
  for (; end < limit; end++) {
    const next = bytes + (end > start ? 1 : 0) + entryBytes(registry.tools[end] as RegisteredTool);
    if (end > start && next > MAX_PAGE_BYTES) break;
    bytes = next;
  }
  rememberPageEnd(registry, start, end);
  return end;
}

/** Where a page ends if a path has measured it already (see `toolsPageEnd`). */
export function knownPageEnd(registry: ToolRegistry, start: number): number | undefined {
  return pageEnds.get(registry)?.get(start);
}

/** Records where the page at `start` ends, as a path measured it while writing it. */
export function rememberPageEnd(registry: ToolRegistry, start: number, end: number): void {
  let ends = pageEnds.get(registry);
  if (!ends) {
    ends = new Map();
    pageEnds.set(registry, ends);
  }
  ends.set(start, end);
}

/** The bytes of a tool's entry in a page: its kept text's, or `listEntry`'s JSON. */
export function entryBytes(tool: RegisteredTool): number {
  const kept = keptParts(tool);
  if (!kept) return Buffer.byteLength(JSON.stringify(listEntry(tool)));
  let bytes = 0;
  for (const part of kept) bytes += part.length;
  return bytes;
}
