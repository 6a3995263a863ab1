import type { ServerResponse } from 'node:http';

/** A request being answered: its response, and the ids of the JSON-RPC requests it carried. */
export interface InFlight {
  res: ServerResponse;
  ids: Array<string | number>;
}

/** What a call in flight at shutdown receives instead of a connection cut mid-answer. */
export const SHUTTING_DOWN = { code: -32000, message: 'The server is shutting down; the call was stopped.' };

/**
 * Answers every request of `flight` with a JSON-RPC error saying the server is shutting down: as
 * a 503 JSON body when nothing was sent yet, or as a last SSE event on a stream already open (a
 * call that reported progress). Writes nothing to a response already sending a JSON body.
 */
export function answerShutdown(flight: InFlight): void {
  const { res, ids } = flight;
  if (res.writableEnded || res.destroyed) return;
  // The handler may still try to write its own answer: that must not become an unhandled error.
  res.on('error', () => {});
  const errors = ids.map((id) => ({ jsonrpc: '2.0', id, error: SHUTTING_DOWN }));
  if (!res.headersSent) {
    const body =
      errors.length === 1
        ? errors[0]
        : errors.length === 0
          ? { jsonrpc: '2.0', id: null, error: SHUTTING_DOWN }
          : errors;
    res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify(body));
    return;
  }
  if (String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) {
    res.end(errors.map((error) => `event: message\ndata: ${JSON.stringify(error)}\n\n`).join(''));
  }
}
