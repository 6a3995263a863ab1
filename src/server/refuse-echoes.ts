import { isPlainObject } from '../plain-object.js';
import { clip, quote } from '../quote-input.js';
import { REVISION } from './plain-envelope.js';

// The SDK's own answers to a malformed 2026-07-28 request quote what the request carried, whole:
// the envelope's protocol version ("Unsupported protocol version: …", twice), and over HTTP the
// method, the tool or prompt name and the resource URI it compares with the Mcp-Method and
// Mcp-Name headers ("the request headers and body disagree: …"). A request may carry megabytes
// there (4 MiB over HTTP, 10 MiB a line over stdio): the answer, and any log of it, came back as
// large, two or three times over. A value far longer than any real one is answered here instead,
// as the SDK would answer it, quoting at most `QUOTED_CHARS` of it.

/** Longer than any method MCP defines (`notifications/resources/list_changed` is 37). */
const MAX_METHOD_CHARS = 256;
/** Longer than any protocol revision (`2026-07-28`). */
const MAX_VERSION_CHARS = 64;
/** Tool and prompt names are at most 128 characters (MCP, 2025-11-25); some room beyond. */
const MAX_NAME_CHARS = 1_024;
/** As long as a resource URI the bridge accepts anywhere (see `resources/subscribe`). */
const MAX_URI_CHARS = 2_048;

/** A JSON-RPC error answer's parts: what the SDK would have said, without the echo. */
export interface RefusedEcho {
  code: number;
  message: string;
  data?: unknown;
}

/** JSON-RPC code of an unsupported protocol version (2026-07-28). */
const UNSUPPORTED_VERSION = -32022;

/** JSON-RPC code of request headers that disagree with the body (2026-07-28). */
const HEADER_MISMATCH = -32020;

/** The headers a 2026-07-28 request repeats its body in, and the longest each may be. */
const HEADERS: Array<[name: string, max: number]> = [
  ['mcp-protocol-version', MAX_VERSION_CHARS],
  ['mcp-method', MAX_METHOD_CHARS],
  ['mcp-name', MAX_URI_CHARS],
];

/**
 * Why a 2026-07-28 request (one that carries the envelope's protocol version) holds a value the SDK
 * would quote whole, or `undefined` for any other message (every ordinary one). Only the length of
 * strings is looked at: what a value of ordinary length means is left to the SDK. Over HTTP,
 * `headers` are the request's: the SDK quotes them whole too when they disagree with the body.
 */
export function refuseEchoes(message: unknown, headers?: Headers): RefusedEcho | undefined {
  if (!isPlainObject(message) || !isPlainObject(message.params)) return undefined;
  for (const [name, max] of headers ? HEADERS : []) {
    const value = headers?.get(name);
    if (value && value.length > max) {
      return {
        code: HEADER_MISMATCH,
        message: `Bad Request: the ${name} header is longer than ${max} characters: ${quote(value)}`,
      };
    }
  }
  const { method, params } = message;
  const meta = isPlainObject(params._meta) ? params._meta : undefined;
  const version = meta?.['io.modelcontextprotocol/protocolVersion'];
  if (version === undefined) return undefined;
  if (typeof version === 'string' && version.length > MAX_VERSION_CHARS) {
    return {
      code: UNSUPPORTED_VERSION,
      message: `Unsupported protocol version: ${quote(version)}`,
      data: { supported: [REVISION], requested: clip(version) },
    };
  }
  if (typeof method === 'string' && method.length > MAX_METHOD_CHARS) {
    return { code: -32601, message: `Method not found: ${quote(method)}` };
  }
  if (typeof params.name === 'string' && params.name.length > MAX_NAME_CHARS) {
    return {
      code: -32602,
      message: `Invalid params: the name is longer than ${MAX_NAME_CHARS} characters: ${quote(params.name)}`,
    };
  }
  if (typeof params.uri === 'string' && params.uri.length > MAX_URI_CHARS) {
    return {
      code: -32602,
      message: `Invalid params: the URI is longer than ${MAX_URI_CHARS} characters: ${quote(params.uri)}`,
    };
  }
  return undefined;
}
