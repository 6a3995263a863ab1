import { listedJsonOf } from '../listed-json.js';
import type { RegisteredTool, ToolRegistry } from '../registry.js';
import { listEntry } from './list-entry.js';
import { PAGE_SIZE, pageBounds } from './paginate.js';

// `tools/list` answers written as bytes: each entry's JSON made once per registry, from the text
// the adapter kept (`keepListedJson`) where there is one, and a page joined from them. For GitHub's
// 1,223 tools from the conversion cache this skips parsing 1.8 MB into objects only to serialize
// them again, the largest part of a repeat start after loading the code (see README, Performance).

/**
 * Each tool's entry as byte parts to join, made on a registry's first list; `null` for a registry
 * with a tool whose output schema is not an object: the 2025-era SDK wraps such a schema in its
 * list answers (`{type: object, properties: {result: …}}`), which only the SDK path does.
 */
const entriesOf = new WeakMap<ToolRegistry, Uint8Array[][] | null>();

function entriesFor(registry: ToolRegistry): Uint8Array[][] | null {
  let entries = entriesOf.get(registry);
  if (entries === undefined) {
    // Kept text promises an object root (see `keepListedJson`); the rest is looked at.
    const wrapped = registry.tools.some(({ definition }) => {
      const output = listedJsonOf(definition) ? undefined : definition.outputSchema;
      return output !== undefined && output.type !== 'object';
    });
    entries = wrapped ? null : registry.tools.map(listEntryParts);
    entriesOf.set(registry, entries);
  }
  return entries;
}

/**
 * A tool's `tools/list` entry (title at the top level, as clients since 2025-06-18 read it) as
 * UTF-8 JSON parts: the same members `listEntry` builds, in another order when taken from kept text.
 */
export function listEntryParts(tool: RegisteredTool): Uint8Array[] {
  const { definition } = tool;
  const listed = listedJsonOf(definition);
  const tasks = definition.taskSupport !== undefined && definition.taskSupport !== 'forbidden';
  // `{"name":…,` before the kept object's members; `execution` is not among them.
  if (listed && !tasks && listed[0] === OPEN_BRACE && listed[listed.length - 1] === CLOSE_BRACE) {
    return [Buffer.from(`{"name":${JSON.stringify(tool.name)},`), listed.subarray(1)];
  }
  return [Buffer.from(JSON.stringify(listEntry(tool)))];
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * The whole JSON-RPC answer (one line, newline included) to a `tools/list` request `id` for the
 * page after `cursor`, as the SDK would send `listPage`'s result; undefined when the SDK must answer:
 * an unreadable cursor (its error), a tool it would wrap (see `entriesOf`).
 */
export function toolsListAnswer(
  registry: ToolRegistry,
  id: string | number,
  cursor: string | undefined,
): Buffer | undefined {
  const entries = entriesFor(registry);
  if (!entries) return undefined;
  const bounds = pageBounds(entries.length, cursor, PAGE_SIZE);
  if (!bounds) return undefined;
  const parts: Uint8Array[] = [Buffer.from('{"result":{"tools":[')];
  for (let index = bounds.start; index < bounds.end; index++) {
    if (index > bounds.start) parts.push(COMMA);
    parts.push(...(entries[index] as Uint8Array[]));
  }
  const next = bounds.nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(bounds.nextCursor)}`;
  parts.push(Buffer.from(`]${next}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`));
  return Buffer.concat(parts);
}

const COMMA = Buffer.from(',');
