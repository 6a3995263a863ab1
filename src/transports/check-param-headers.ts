import { quote } from '../quote-input.js';

/**
 * SEP-2243 custom headers (protocol 2026-07-28, Streamable HTTP): a tool may mark primitive
 * arguments with `x-mcp-header: "Name"` in its input schema; clients then repeat the argument's
 * value in an `Mcp-Param-Name` header (raw, or `=?base64?…?=` for values that are not plain
 * ASCII), so that gateways can route on it. The server MUST reject a call whose header is
 * missing or disagrees with the body: HTTP 400 with JSON-RPC error -32020 (header mismatch).
 * The SDK does this only for its high-level `McpServer`; the bridge serves the low-level one.
 */

/** One `x-mcp-header` declaration: the argument's path from the root and its JSON type. */
export interface ParamHeader {
  header: string;
  path: string[];
  type: string;
}

/** JSON-RPC code for a header that disagrees with the body (2026-07-28). */
const HEADER_MISMATCH = -32020;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PRIMITIVE = new Set(['string', 'integer', 'number', 'boolean']);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const SENTINEL_START = '=?base64?';
const SENTINEL_END = '?=';

const scanned = new WeakMap<object, ParamHeader[]>();

/**
 * The declarations of a tool's input schema, memoised per schema object. Only properties
 * reachable through `properties` chains count, as the SEP says; a malformed declaration (not a
 * header token, not a primitive type) is ignored, like conforming clients ignore the tool's.
 */
function paramHeadersOf(schema: Record<string, unknown>): ParamHeader[] {
  let found = scanned.get(schema);
  if (!found) {
    found = [];
    collect(schema, [], found);
    scanned.set(schema, found);
  }
  return found;
}

function collect(node: unknown, path: string[], into: ParamHeader[]): void {
  const properties = (node as { properties?: unknown } | null)?.properties;
  if (!properties || typeof properties !== 'object') return;
  for (const [name, child] of Object.entries(properties as Record<string, unknown>)) {
    if (!child || typeof child !== 'object') continue;
    const { 'x-mcp-header': header, type } = child as { 'x-mcp-header'?: unknown; type?: unknown };
    if (typeof header === 'string' && TOKEN.test(header) && typeof type === 'string' && PRIMITIVE.has(type)) {
      into.push({ header, path: [...path, name], type });
    }
    collect(child, [...path, name], into);
  }
}

/**
 * Checks the `Mcp-Param-*` headers of one `tools/call` against its arguments. Returns what is
 * wrong, or `undefined` when every argument present in the body has a matching header (an
 * absent or null argument needs no header).
 */
function checkParamHeaders(declarations: ParamHeader[], args: unknown, headers: Headers): string | undefined {
  for (const declaration of declarations) {
    const value = valueAt(args, declaration.path);
    if (value === undefined || value === null || typeof value === 'object') continue;
    const name = `Mcp-Param-${declaration.header}`;
    const raw = headers.get(name);
    if (raw === null) return `the ${name} header is missing; the body sets ${declaration.path.join('.')}`;
    const decoded = decodeParam(raw);
    if (decoded === undefined) return `the ${name} header is not valid =?base64?…?= encoding`;
    const numeric =
      (declaration.type === 'integer' || declaration.type === 'number') &&
      typeof value === 'number' &&
      DECIMAL.test(decoded);
    if (numeric ? Number(decoded) !== value : decoded !== String(value)) {
      return `the ${name} header (${quote(decoded)}) does not match ${declaration.path.join('.')} in the body (${quote(value)})`;
    }
  }
  return undefined;
}

// A value without both sentinel ends is literal; inside them, only canonical UTF-8 Base64 passes.
function decodeParam(raw: string): string | undefined {
  if (!(raw.startsWith(SENTINEL_START) && raw.endsWith(SENTINEL_END)) || raw.length < 11) return raw;
  const encoded = raw.slice(SENTINEL_START.length, -SENTINEL_END.length);
  if (!BASE64.test(encoded)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'));
  } catch {
    return undefined;
  }
}

function valueAt(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * For a 2026-07-28 `tools/call` POST naming (in `Mcp-Name`) a tool with declarations: the 400
 * answer when its `Mcp-Param-*` headers disagree with the body, else `undefined`. Other requests
 * cost one header lookup; the body (`parsedBody`, or else read from a clone) is looked at only for
 * tools that declare headers.
 */
export async function rejectParamHeaders(
  request: Request,
  inputSchemaOf: (toolName: string) => Record<string, unknown> | undefined,
  parsedBody?: unknown,
): Promise<Response | undefined> {
  const toolName = request.headers.get('mcp-name');
  if (request.method !== 'POST' || toolName === null || request.headers.get('mcp-method') !== 'tools/call') {
    return undefined;
  }
  const schema = inputSchemaOf(toolName.trim());
  const declarations = schema ? paramHeadersOf(schema) : [];
  if (declarations.length === 0) return undefined;
  let body: { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } };
  try {
    body = (parsedBody ?? (await request.clone().json())) as typeof body;
  } catch {
    return undefined; // Not JSON: the SDK answers the parse error.
  }
  // A body naming another tool or method is a standard-header mismatch the SDK reports itself.
  if (body?.method !== 'tools/call' || body.params?.name !== toolName.trim()) return undefined;
  const problem = checkParamHeaders(declarations, body.params?.arguments, request.headers);
  if (problem === undefined) return undefined;
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
  return Response.json(
    {
      jsonrpc: '2.0',
      id,
      error: {
        code: HEADER_MISMATCH,
        message: `Bad Request: the request headers and body disagree: ${problem}`,
      },
    },
    { status: 400 },
  );
}
