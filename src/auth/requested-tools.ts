import { isPlainObject } from '../plain-object.js';

/** One tool call a request asks for. */
export interface RequestedCall {
  name: string;
  /** Its arguments; `{}` when absent or not an object (the handler refuses those). */
  args: Record<string, unknown>;
}

/**
 * The tools a POST asks to call, with their arguments, read from its parsed JSON-RPC body (or a copy of it) (one message
 * or, in 2025-03-26, a batch). Scopes are checked here, at the HTTP layer, because the MCP
 * authorization spec answers a missing scope with an HTTP `403` challenge, not a JSON-RPC error.
 *
 * Both eras are covered: a 2026-07-28 request also names the tool in `Mcp-Name`, but the SDK
 * rejects a header that disagrees with the body, so the body is the one source of truth.
 * A body that does not parse is let through: the MCP handler answers it with a parse error and
 * runs nothing.
 */
export async function requestedTools(request: Request, parsedBody?: unknown): Promise<RequestedCall[]> {
  if (request.method !== 'POST') return [];
  // The Node wrapper parses every body once; only a request from elsewhere is read here.
  let body = parsedBody;
  if (body === undefined) {
    try {
      body = JSON.parse(await request.clone().text());
    } catch {
      return [];
    }
  }
  const messages = Array.isArray(body) ? body : [body];
  const calls: RequestedCall[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as {
      method?: unknown;
      params?: { name?: unknown; arguments?: unknown };
    };
    if (method !== 'tools/call') continue;
    // A call without a string name is refused by the handler as invalid params; nothing runs.
    if (typeof params?.name !== 'string') continue;
    calls.push({ name: params.name, args: isPlainObject(params.arguments) ? params.arguments : {} });
  }
  return calls;
}
