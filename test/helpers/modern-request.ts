/** The per-request `_meta` envelope of a 2026-07-28 request. */
export function envelope(capabilities: object = {}, client = 'raw-2026') {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: client, version: '1' },
  };
}

/** What a raw 2026-07-28 exchange gave back. */
export interface ModernReply {
  status: number;
  headers: Headers;
  /** The response body as received. */
  text: string;
  /** The JSON-RPC answer, from a JSON body or the last SSE `data:` line; `undefined` if neither. */
  json?: {
    id?: unknown;
    result?: { content?: Array<{ type: string; text?: string }>; [key: string]: unknown };
    error?: { code: number; message: string; data?: unknown };
  };
}

export interface ModernRequestOptions {
  /** The client's per-request capabilities. */
  capabilities?: object;
  /** Extra headers, or replacements for the standard ones. */
  headers?: Record<string, string>;
  id?: number | string;
  signal?: AbortSignal;
}

/**
 * One 2026-07-28 request over raw HTTP: the envelope in `_meta`, and the `MCP-Protocol-Version`,
 * `Mcp-Method` and `Mcp-Name` headers the revision requires (`Mcp-Name` from `params.name` or
 * `params.taskId`). The response as it comes, for a stream to read (`subscriptions/listen`).
 */
export function modernFetch(
  url: URL | string,
  method: string,
  params: Record<string, unknown> = {},
  options: ModernRequestOptions = {},
): Promise<Response> {
  const name = params.name ?? params.taskId;
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? 1,
      method,
      params: { ...params, _meta: envelope(options.capabilities) },
    }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** `modernFetch`, its answer read whole: the JSON-RPC message from a JSON body or the last SSE event. */
export async function modernRequest(
  url: URL | string,
  method: string,
  params: Record<string, unknown> = {},
  options: ModernRequestOptions = {},
): Promise<ModernReply> {
  const response = await modernFetch(url, method, params, options);
  const text = await response.text();
  const data = text.startsWith('{') ? text : [...text.matchAll(/^data: (.*)$/gm)].at(-1)?.[1];
  let json: ModernReply['json'];
  try {
    json = data === undefined ? undefined : JSON.parse(data);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, ...(json ? { json } : {}) };
}
