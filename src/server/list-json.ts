import { SERVER_INFO_META_KEY, type Tool } from '@modelcontextprotocol/server';
import { listedJsonOf } from '../listed-json.js';
import { isPlainObject } from '../plain-object.js';
import type { RegisteredTool, ToolRegistry } from '../registry.js';
import { REQUEST_KEYS } from './answer-tools-call.js';
import { keptParts, listEntry } from './list-entry.js';
import { knownPageEnd, MAX_PAGE_BYTES, rememberPageEnd, toolsPageEnd } from './page-ends.js';
import { nextCursorAt, PAGE_SIZE, pageStart, toolsVersion } from './paginate.js';

// `tools/list` answers written as bytes: each entry's JSON from the text the adapter kept
// (`keepListedJson`) where there is one, serialized otherwise, and a page joined from them. For
// GitHub's 1,223 tools from the conversion cache this skips parsing 1.6 MB into objects only to
// serialize them again, the largest part of a repeat start after loading the code (see README,
// Performance).

/**
 * Per registry, made on its first list: each tool's entry parts when it has kept text (a name
 * prefix and a view of that text: no copy), undefined for a tool serialized on each answer
 * (holding its bytes would keep a second copy of every schema, the SDK path keeps none either);
 * `null` for a registry the SDK lists: one with a tool whose output schema is not an object (the
 * 2025-era SDK wraps such a schema in its list answers, `{type: object, properties: {result: …}}`,
 * which only the SDK path does). A registry without any kept text (a first start) is listed here
 * too, its tools serialized a run at a time (see `toolsListPage`): a stdio start whose first list
 * went through the SDK also paid for the SDK's message schemas (see `createStdioLane`).
 */
const entriesOf = new WeakMap<ToolRegistry, Array<Uint8Array[] | undefined> | null>();

function entriesFor(registry: ToolRegistry): Array<Uint8Array[] | undefined> | null {
  let entries = entriesOf.get(registry);
  if (entries === undefined) {
    // Kept text promises an object root (see `keepListedJson`); the rest is looked at.
    const wrapped = registry.tools.some(({ definition }) => {
      const output = listedJsonOf(definition) ? undefined : definition.outputSchema;
      return output !== undefined && output.type !== 'object';
    });
    entries = wrapped ? null : registry.tools.map((tool) => keptParts(tool));
    entriesOf.set(registry, entries);
  }
  return entries;
}

/** How long and for whom a 2026-07-28 client may cache a tools/list answer (the SDK's cache hint). */
export const LIST_CACHE_HINT = { ttlMs: 60_000, cacheScope: 'public' } as const;

/**
 * What a 2026-07-28 list result carries besides its tools, as the SDK's codec stamps it: the
 * server's identity in `_meta` and the cache fields of the server's hint for `tools/list`. Its
 * tools carry no `execution` (the revision deleted the member).
 */
export interface ModernListing {
  serverInfo: { name: string; version: string };
  ttlMs: number;
  cacheScope: string;
}

/**
 * The whole JSON-RPC answer to a `tools/list` request `id` for the page after `cursor`, as the SDK
 * would send `listPage`'s result: to an initialize-era client (`modern` absent), one line with its
 * newline; to a 2026-07-28 client, the encoded result (see `ModernListing`). Undefined when the
 * SDK answers: a cursor it refuses (unreadable, or from an earlier list: its error), a registry it
 * lists (see `entriesOf`).
 */
export function toolsListAnswer(
  registry: ToolRegistry,
  id: string | number,
  cursor: string | undefined,
  modern?: ModernListing,
): Buffer | undefined {
  const page = toolsListPage(registry, cursor, modern);
  return page && answerWithPage(page, id);
}

/**
 * One page of a `tools/list` answer, serialized up to the request's id: made when a request asks
 * for it, or ahead of the request (see `createStdioLane`), and answered with `answerWithPage`.
 */
export interface ListPage {
  cursor: string | undefined;
  nextCursor: string | undefined;
  modern: boolean;
  /** The answer's bytes before `,"jsonrpc":"2.0","id":…`, in parts joined when it is sent. */
  body: readonly Uint8Array[];
}

/** The page of `registry` after `cursor` (see `toolsListAnswer`), or undefined when the SDK answers. */
export function toolsListPage(
  registry: ToolRegistry,
  cursor: string | undefined,
  modern?: ModernListing,
): ListPage | undefined {
  const entries = entriesFor(registry);
  if (!entries) return undefined;
  const version = (end: number) => toolsVersion(registry, end);
  const start = pageStart(entries.length, cursor, version);
  if (typeof start === 'string') return undefined;
  // Where the page ends (see `toolsPageEnd`): measured here as its entries are written, unless
  // known already, or unless they are written in another form than the one measured (2026-07-28's).
  const known = knownPageEnd(registry, start) ?? (modern ? toolsPageEnd(registry, start) : undefined);
  const limit = known ?? Math.min(entries.length, start + PAGE_SIZE);
  const parts: Uint8Array[] = [Buffer.from('{"result":{"tools":[')];
  let bytes = 0;
  let end = start;
  let full = false;
  const add = (json: Uint8Array[], size: number, count: number) => {
    if (end > start) {
      parts.push(COMMA);
      bytes++;
    }
    parts.push(...json);
    bytes += size;
    end += count;
  };
  // Whether entries of `size` bytes (a run of them, or one) still go in the page: the first tool
  // always does.
  const fits = (size: number, one: boolean) =>
    known !== undefined || (one && end === start) || (end > start ? bytes + 1 : 0) + size <= MAX_PAGE_BYTES;
  // Tools without kept text are serialized a run at a time, in one `JSON.stringify` of the run's
  // entries: one call per tool cost about twice as much (GitHub's 500-tool pages, first start).
  // Runs stop at `RUN_TOOLS`: a whole page's string and its copies held together raised the peak
  // memory of a first start by ~2.5 MB. A run that would pass the page's bytes is written a tool
  // at a time, up to where the page ends.
  let run: Tool[] = [];
  const endRun = () => {
    if (run.length === 0) return;
    const json = Buffer.from(JSON.stringify(run)).subarray(1, -1);
    if (fits(json.length, run.length === 1)) add([json], json.length, run.length);
    else {
      for (const entry of run) {
        const one = Buffer.from(JSON.stringify(entry));
        if (!fits(one.length, true)) {
          full = true;
          break;
        }
        add([one], one.length, 1);
      }
    }
    run = [];
  };
  for (let index = start; index < limit && !full; index++) {
    const kept = entries[index];
    if (!kept) {
      const tool = registry.tools[index] as RegisteredTool;
      run.push(modern ? modernEntry(tool) : listEntry(tool));
      if (run.length === RUN_TOOLS) endRun();
      continue;
    }
    endRun();
    if (full) break;
    const size = kept.reduce((sum, part) => sum + part.length, 0);
    if (!fits(size, true)) {
      full = true;
      break;
    }
    add(kept, size, 1);
  }
  endRun();
  if (known === undefined) rememberPageEnd(registry, start, end);
  const nextCursor = nextCursorAt(end, entries.length, version);
  const next = nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(nextCursor)}`;
  const stamps = modern
    ? `,"resultType":"complete","ttlMs":${JSON.stringify(modern.ttlMs)},"cacheScope":${JSON.stringify(modern.cacheScope)},"_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: modern.serverInfo })}`
    : '';
  parts.push(Buffer.from(`]${next}${stamps}}`));
  return { cursor, nextCursor, modern: modern !== undefined, body: parts };
}

/** Tools serialized by one `JSON.stringify` at most (see `toolsListPage`). */
const RUN_TOOLS = 50;

/** The answer to request `id` with `page`: one line to an initialize-era client (see `toolsListAnswer`). */
export function answerWithPage(page: ListPage, id: string | number): Buffer {
  const tail = Buffer.from(`,"jsonrpc":"2.0","id":${JSON.stringify(id)}${page.modern ? '}' : '}\n'}`);
  return Buffer.concat([...page.body, tail]);
}

// A tool without kept text as the 2026-07-28 codec lists it: without `execution`.
function modernEntry(tool: RegisteredTool): Tool {
  const { execution: _, ...entry } = listEntry(tool);
  return entry;
}

const COMMA = Buffer.from(',');

/**
 * A `tools/list` request whose params hold no more than a cursor (and, with `envelope`, the
 * 2026-07-28 `_meta`, returned as `meta`); undefined for anything else.
 */
export function plainListRequest(
  message: unknown,
  envelope = false,
): { id: string | number; cursor: string | undefined; meta?: unknown } | undefined {
  if (!isPlainObject(message) || message.jsonrpc !== '2.0') return undefined;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return undefined;
  const { id, params } = message;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (params === undefined) return { id: id as string | number, cursor: undefined };
  if (!isPlainObject(params)) return undefined;
  for (const key in params) if (key !== 'cursor' && !(envelope && key === '_meta')) return undefined;
  if (params.cursor !== undefined && typeof params.cursor !== 'string') return undefined;
  return { id: id as string | number, cursor: params.cursor, meta: params._meta };
}
