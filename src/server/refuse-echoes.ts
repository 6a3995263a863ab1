import { isPlainObject } from '../plain-object.js';
import { clip, quote } from '../quote-input.js';
import { REVISION } from './plain-envelope.js';

// The SDK's own answers to a malformed 2026-07-28 request quote what the request carried, whole:
// the envelope's protocol version ("Unsupported protocol version: …", twice), and over HTTP the
// method, the name, URI or task id and the protocol version where the Mcp-Method, Mcp-Name and
// MCP-Protocol-Version headers disagree with them ("the request headers and body disagree: …",
// the body's value and the header's). A request may carry megabytes there (4 MiB over HTTP, 10 MiB
// a line over stdio): the answer came back as large, two or three times over. A request holding
// such a value far longer than any real one is answered here instead, with the error the SDK would
// give, quoting at most `QUOTED_CHARS` of each value. What the bridge's own handlers answer about a
// long value (an unknown tool, resource or task) already quotes it so, and is left to them.

/** Longer than any protocol revision (`2026-07-28`). */
const MAX_VERSION_CHARS = 64;
/**
 * Longer than any real method, name, URI or task id: tool and prompt names are at most 128
 * characters (MCP, 2025-11-25), the bridge accepts URIs of up to 2,048 elsewhere.
 */
const MAX_VALUE_CHARS = 2_048;

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

/**
 * Why a 2026-07-28 request (one with an id that carries the envelope's protocol version) holds a
 * value the SDK would quote whole, or `undefined` for any other message (every ordinary one). Over
 * HTTP, `headers` are the request's. Only lengths and equality are looked at: what a value of
 * ordinary length means is left to the SDK. Notifications are never answered, so never refused.
 */
export function refuseEchoes(message: unknown, headers?: Headers): RefusedEcho | undefined {
  if (!isPlainObject(message) || message.id === undefined || !isPlainObject(message.params)) return undefined;
  const { method, params } = message;
  const version = isPlainObject(params._meta)
    ? params._meta['io.modelcontextprotocol/protocolVersion']
    : undefined;
  if (version === undefined) return undefined;
  if (headers) {
    const named = params.name ?? params.uri ?? params.taskId;
    const pairs: Array<[header: string, body: unknown, max: number]> = [
      ['MCP-Protocol-Version', version, MAX_VERSION_CHARS],
      ['Mcp-Method', method, MAX_VALUE_CHARS],
      ['Mcp-Name', named, MAX_VALUE_CHARS],
    ];
    for (const [name, body, max] of pairs) {
      const header = headers.get(name);
      const long = (header?.length ?? 0) > max || (typeof body === 'string' && body.length > max);
      if (long && header !== body) {
        return {
          code: HEADER_MISMATCH,
          message: `Bad Request: the request headers and body disagree: the ${name} header is ${header === null ? 'missing' : quote(header)}, the body's value ${body === undefined ? 'absent' : quote(body)}`,
        };
      }
    }
  }
  if (typeof version === 'string' && version.length > MAX_VERSION_CHARS) {
    return {
      code: UNSUPPORTED_VERSION,
      message: `Unsupported protocol version: ${quote(version)}`,
      data: { supported: [REVISION], requested: clip(version) },
    };
  }
  return undefined;
}
