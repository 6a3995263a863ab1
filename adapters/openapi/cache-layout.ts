import { createHash } from 'node:crypto';
import { sealJson } from '../../src/index.js';
import type { OperationSummary, ToolData } from './operations-to-tools.js';

// The conversion cache file's layout: one line of JSON (the head: what every start needs, and where
// each tool's parts are) followed by the body (the JSON of each part, back to back). A start parses
// the head and then only what it serves: dynamic mode nothing more until a model searches,
// describes or calls; `--tools all` nothing more either, since each tool's first part is exactly
// its listed members as `tools/list` sends them (see `keepListedJson`). A tool's parts are parsed
// on its first call. GitHub's spec: 3.1 MB, of which a start parses the head's ~80 kB.

/** One operation in the cache: converted, or why it cannot be. */
export interface CachedTool {
  name: string;
  /** Read from a cache file: parsed on first access (all operations at once). */
  operation: OperationSummary;
  readOnly: boolean;
  /** Read from a cache file: both its parts parsed on first access. */
  data?: ToolData;
  /** Read from a cache file: `data`'s listed members as JSON (see `keepListedJson`), unparsed. */
  listed?: Uint8Array;
  error?: string;
}

/**
 * A tool in the head: why it cannot be converted, or where its listed members (`listedMembers`)
 * and the rest of its data (`plan`, `timeoutMs`) are.
 */
type HeadTool = [name: string, readOnly: boolean, error: string] | [string, boolean, number, number, number];

/** The head line, around the fields of the conversion itself (and its checksum: `sealJson`). */
export interface Head {
  body: { bytes: number; sha256: string };
  /** The body range of the JSON array of every tool's `operation`, in tool order. */
  operations: [number, number];
  tools: HeadTool[];
}

/** The file's bytes for `meta` (the head's other fields) and `tools`. */
export function encode(meta: Record<string, unknown>, tools: CachedTool[]): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  const add = (value: unknown): number => {
    const bytes = Buffer.from(JSON.stringify(value));
    parts.push(bytes);
    offset += bytes.length;
    return offset;
  };
  const operations: [number, number] = [0, add(tools.map((tool) => tool.operation))];
  const entries = tools.map((tool): HeadTool => {
    if (!tool.data) return [tool.name, tool.readOnly, tool.error ?? 'not converted'];
    const { plan, timeoutMs } = tool.data;
    const start = offset;
    return [tool.name, tool.readOnly, start, add(listedMembers(tool.data)), add({ plan, timeoutMs })];
  });
  const body = Buffer.concat(parts);
  const head: Head = {
    ...meta,
    body: { bytes: body.length, sha256: sha256(body) },
    operations,
    tools: entries,
  };
  // Sealed with its own checksum (`sealJson`): its servers, schemes and tool entries say where
  // requests go and where each tool's parts are, and are used without another check.
  return Buffer.concat([Buffer.from(`${sealJson(JSON.stringify(head))}\n`), body]);
}

/**
 * The members of `data` that `tools/list` carries, as the core lists a definition (`listEntry`):
 * the title only when not empty, the output schema only when there is one.
 */
function listedMembers(data: ToolData): Record<string, unknown> {
  const { title, description, inputSchema, outputSchema, annotations } = data;
  return { ...(title ? { title } : {}), description, inputSchema, outputSchema, annotations };
}

/**
 * Splits a cache file into its head (parsed, not yet checked: see `problem`) and body. Throws when
 * the head is not JSON.
 */
export function split(bytes: Buffer): { head: Record<string, unknown>; headText: string; body: Buffer } {
  const newline = bytes.indexOf(10);
  const end = newline < 0 ? bytes.length : newline;
  const headText = bytes.toString('utf8', 0, end);
  return { head: JSON.parse(headText), headText, body: bytes.subarray(end + 1) };
}

/** Why the body does not belong to the head, or a tool entry is malformed; undefined when whole. */
export function problem(head: Head, body: Buffer): string | undefined {
  const declared = head.body;
  if (!declared || typeof declared.bytes !== 'number') return 'incomplete';
  if (body.length !== declared.bytes) return `truncated: ${body.length} of ${declared.bytes} bytes`;
  // The body is parsed piecemeal, long after start-up: a damaged byte must be found now.
  if (sha256(body) !== declared.sha256) return 'corrupt: its content does not match its checksum';
  const inBody = (n: unknown, from: number): n is number =>
    Number.isInteger(n) && (n as number) >= from && (n as number) <= body.length;
  if (
    !Array.isArray(head.operations) ||
    !inBody(head.operations[0], 0) ||
    !inBody(head.operations[1], head.operations[0])
  )
    return 'incomplete';
  const bad = head.tools.find(
    (tool) =>
      !Array.isArray(tool) ||
      typeof tool[0] !== 'string' ||
      typeof tool[1] !== 'boolean' ||
      (tool.length === 3
        ? typeof tool[2] !== 'string'
        : tool.length !== 5 || !inBody(tool[2], 0) || !inBody(tool[3], tool[2]) || !inBody(tool[4], tool[3])),
  );
  return bad ? 'incomplete tool entry' : undefined;
}

/** The tools of a checked head, each part parsed from `body` when first read. */
export function lazyTools(head: Head, body: Buffer): CachedTool[] {
  let operations: OperationSummary[] | undefined;
  const operationAt = (index: number): OperationSummary => {
    operations ??= parse(body, head.operations[0], head.operations[1]) as OperationSummary[];
    return operations[index] as OperationSummary;
  };
  return head.tools.map((entry, index): CachedTool => {
    const [name, readOnly] = entry;
    if (entry.length === 3) {
      return {
        name,
        readOnly,
        error: entry[2],
        get operation() {
          return operationAt(index);
        },
      };
    }
    const [, , start, restAt, end] = entry;
    let data: ToolData | undefined;
    return {
      name,
      readOnly,
      get operation() {
        return operationAt(index);
      },
      get data() {
        // The title an empty one left out (see `listedMembers`) is back as the empty string.
        data ??= {
          title: '',
          ...(parse(body, start, restAt) as object),
          ...(parse(body, restAt, end) as object),
        } as ToolData;
        return data;
      },
      listed: body.subarray(start, restAt),
    };
  });
}

const parse = (body: Buffer, start: number, end: number): unknown =>
  JSON.parse(body.toString('utf8', start, end));

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
