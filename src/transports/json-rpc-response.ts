/** An HTTP response carrying a JSON-RPC error with no request id (transport-level failures). */
export function jsonRpcErrorResponse(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): Response {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  const response = new Response(body, { status, headers });
  response.headers.set('content-type', 'application/json');
  return response;
}
