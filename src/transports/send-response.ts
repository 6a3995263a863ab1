import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventStreamAnswer } from '../server/direct-session-call.js';
import { watchUnread } from './watch-unread.js';

/**
 * The request line and headers as a bodiless `Request`, for the handler's header checks and for
 * the handler itself: the body was already read and parsed once, and travels beside it as a value
 * (the SDK layers read the parsed value and never the request body).
 */
export function headRequest(req: IncomingMessage, host: string): Request {
  // Plain header values go in as they are; a repeated header (an array) one value at a time.
  let headers: Record<string, string> | Array<[string, string]> = req.headers as Record<string, string>;
  if (Object.values(req.headers).some((value) => typeof value !== 'string')) {
    headers = [];
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) headers.push([name, item]);
    }
  }
  // No signal here: following one costs as much as the rest of the request. The handler gets the
  // request's signal beside it, and gives it to the requests it passes on (see `HttpHandler.fetch`).
  return new Request(`http://${host}${req.url}`, { method: req.method ?? 'GET', headers });
}

/** Writes a JSON answer in one write, with its length. */
export function sendJson(
  res: ServerResponse,
  answer: { status: number; message: unknown } | { status: number; body: Uint8Array },
): void {
  const body = 'body' in answer ? answer.body : JSON.stringify(answer.message);
  res.writeHead(answer.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * Bytes of events a client may leave unread on one stream for long (see `watchUnread`). Past it
 * the stream is closed, as if the client had gone: what it missed stays in the session's event
 * store, and it resumes with `Last-Event-ID`. Without a bound, a client that stops reading makes
 * the bridge hold every event its calls still send (progress, log messages, large answers) in memory.
 */
export const MAX_UNREAD_EVENT_BYTES = 8 * 1024 * 1024;

/**
 * Streams an event answer: the head, then what its sink is given, until the answer ends the
 * stream or the client goes away (then the sink writes nothing and says so: `gone`). Resolves then.
 * A client that leaves more than `maxUnread` bytes unread (see `watchUnread`) is treated as gone:
 * `true` says it was.
 */
export function sendEvents(
  res: ServerResponse,
  answer: EventStreamAnswer,
  maxUnread = MAX_UNREAD_EVENT_BYTES,
): Promise<boolean> {
  res.writeHead(answer.status, answer.headers);
  const unread = watchUnread(res, maxUnread);
  return new Promise((resolve) => {
    res.once('close', () => {
      unread.stop();
      resolve(unread.cut());
    });
    let corked = false;
    const open = () => !res.writableEnded && !res.destroyed;
    answer.open({
      write(text) {
        if (!open() || !unread.allows()) return;
        // Held until the next tick, so that events written together leave in one write.
        if (!corked) {
          corked = true;
          res.cork();
          process.nextTick(() => {
            corked = false;
            res.uncork();
          });
        }
        res.write(text);
      },
      end(text) {
        if (open()) res.end(text);
        // Past the bound the client may still be cut for what it leaves unread: 'close' says.
        if (!unread.pending()) resolve(unread.cut());
      },
      get gone() {
        return !open();
      },
    });
  });
}

/** When a stream the server ends (its lifetime is over) stops, and the last event it then gets. */
export interface StreamEnd {
  signal: AbortSignal;
  /** Written before the end, e.g. a listen request's result; nothing when absent. */
  farewell?: string;
}

/**
 * Writes a web `Response` to a Node response. A JSON answer (most calls) is read whole and sent
 * in one write with its length; an SSE stream is copied chunk by chunk until it ends, `signal`
 * aborts (the client left) or `end` says the server ends it (then the farewell goes out and the
 * response ends cleanly). Either way the stream is cancelled, so what produces it stops at once
 * rather than at its next event. The stream is read as fast as it is written, not as the client
 * reads: the SDK queues every answer in it whatever the client reads (a batch of a hundred list
 * requests, a task stream's results), so waiting for the socket left that queue without a bound.
 * Read eagerly, the queue is the socket's, and a client that leaves more than `maxUnread` bytes
 * unread (see `watchUnread`) is treated as gone, as on the bridge's own event streams
 * (`sendEvents`): `true` says so.
 */
export async function sendResponse(
  res: ServerResponse,
  response: Response,
  signal: AbortSignal,
  end?: StreamEnd,
  maxUnread = MAX_UNREAD_EVENT_BYTES,
): Promise<boolean> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  if (response.body === null) {
    res.writeHead(response.status, headers);
    res.end();
    return false;
  }
  if (!headers['content-type']?.startsWith('text/event-stream')) {
    const body = Buffer.from(await response.arrayBuffer());
    headers['content-length'] = String(body.length);
    res.writeHead(response.status, headers);
    res.end(body);
    return false;
  }
  res.writeHead(response.status, headers);
  const stopped = new Promise<'stopped'>((resolve) => {
    for (const stop of [signal, end?.signal]) {
      if (stop?.aborted) resolve('stopped');
      else stop?.addEventListener('abort', () => resolve('stopped'), { once: true });
    }
  });
  const reader = response.body.getReader();
  const unread = watchUnread(res, maxUnread);
  res.once('close', unread.stop);
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), stopped]);
      if (next === 'stopped' || next.done) break;
      if (!unread.allows()) return true;
      // Held until the next tick: an event and the stream's end that follows at once (a call's
      // result) leave in one write, while an event alone still goes out without waiting.
      res.cork();
      res.write(next.value);
      process.nextTick(() => res.uncork());
    }
  } catch {
    // A stream that fails mid-way ends the response; the handler has reported the cause.
  } finally {
    reader.cancel().catch(() => {});
  }
  if (end?.signal.aborted && end.farewell && !signal.aborted) res.end(end.farewell);
  else res.end();
  // Past the bound the client may still be cut for what it leaves unread, after the end: wait.
  if (unread.pending()) await new Promise((resolve) => res.once('close', resolve));
  return unread.cut();
}
