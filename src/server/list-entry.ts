import type { Tool } from '@modelcontextprotocol/server';
import { listedJsonOf } from '../listed-json.js';
import type { RegisteredTool } from '../registry.js';

/**
 * A tool as `tools/list` carries it: the one builder, shared by the server and `bridge inspect`
 * (whose token estimate must count exactly what clients receive). The title goes once, at the top
 * level: since 2025-06-18 clients display `title` before `annotations.title` (the SDKs'
 * `getDisplayName`: title → annotations.title → name), so a copy in the annotations only cost bytes
 * (~60 kB over GitHub's 1,223 tools). Clients of a revision before 2025-06-18, which know only
 * `annotations.title`, get the title there instead (`titleIn: 'annotations'`). The annotations keep
 * all four hints. A change to what this takes from a definition bumps `LISTED_JSON_FORMAT`.
 */
export function listEntry(tool: RegisteredTool, titleIn: 'top' | 'annotations' = 'top'): Tool {
  const { definition } = tool;
  const entry: Tool = {
    name: tool.name,
    description: definition.description,
    inputSchema: definition.inputSchema as Tool['inputSchema'],
    annotations:
      titleIn === 'annotations' && definition.title
        ? { ...definition.annotations, title: definition.title }
        : definition.annotations,
  };
  if (definition.title && titleIn === 'top') entry.title = definition.title;
  if (definition.outputSchema) entry.outputSchema = definition.outputSchema as Tool['outputSchema'];
  if (definition.taskSupport && definition.taskSupport !== 'forbidden') {
    entry.execution = { taskSupport: definition.taskSupport };
  }
  return entry;
}

/**
 * A tool's entry from the text its adapter kept (`keepListedJson`): `{"name":…,` before the kept
 * object's members (`execution` is not among them). Undefined for a tool without such text.
 */
export function keptParts(tool: RegisteredTool): Uint8Array[] | undefined {
  const { definition } = tool;
  const listed = listedJsonOf(definition);
  const tasks = definition.taskSupport !== undefined && definition.taskSupport !== 'forbidden';
  // An object with at least one member, which the name is joined to with a comma.
  if (!listed || tasks || listed.length < 3 || listed[0] !== OPEN_BRACE || listed.at(-1) !== CLOSE_BRACE)
    return undefined;
  return [Buffer.from(`{"name":${JSON.stringify(tool.name)},`), listed.subarray(1)];
}

/**
 * A tool's `tools/list` entry (title at the top level, as clients since 2025-06-18 read it) as
 * UTF-8 JSON parts: the same members `listEntry` builds, in another order when taken from kept text.
 */
export function listEntryParts(tool: RegisteredTool): Uint8Array[] {
  return keptParts(tool) ?? [Buffer.from(JSON.stringify(listEntry(tool)))];
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
