import type { IncomingMessage } from 'node:http';

/** Why a body was not read: the HTTP status and JSON-RPC error to answer with. */
export interface BodyRefusal {
  status: number;
  code: number;
  message: string;
}

export interface ReadBodyOptions {
  /** Largest body accepted, in bytes. */
  limit: number;
  /** The whole body must arrive within this many milliseconds of the headers. */
  deadlineMs: number;
}

/**
 * Reads a request body within a size limit and a deadline. A body over the limit is refused with
 * 413 and the rest is discarded as it arrives (not kept), so the client finishes sending and reads
 * the answer instead of a broken pipe; past four times the limit the connection is cut. A body that
 * has not fully arrived by the deadline is refused with 408 and the connection is closed: a slow
 * client cannot hold memory or a connection slot for minutes.
 */
export function readBody(req: IncomingMessage, options: ReadBodyOptions): Promise<string | BodyRefusal> {
  const { limit, deadlineMs } = options;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refusal: BodyRefusal | undefined;
    const tooLarge = (): BodyRefusal => ({
      status: 413,
      code: -32000,
      message: `Payload Too Large: the limit is ${limit} bytes`,
    });
    const settle = (value: string | BodyRefusal) => {
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      refusal = {
        status: 408,
        code: -32000,
        message: `Request Timeout: the body did not arrive within ${deadlineMs} ms`,
      };
      chunks.length = 0;
      req.removeAllListeners('data');
      req.resume();
      resolve(refusal);
    }, deadlineMs);
    timer.unref();
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      refusal = tooLarge();
      settle(refusal);
    }
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit * 4) req.destroy();
      if (refusal) return;
      if (size > limit) {
        refusal = tooLarge();
        chunks.length = 0;
        settle(refusal);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!refusal) settle(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', () => {
      if (!refusal) settle({ status: 400, code: -32000, message: 'Bad Request: the body was cut off' });
    });
  });
}

/** Whether `value` is a refusal rather than a body. */
export function isRefusal(value: string | BodyRefusal): value is BodyRefusal {
  return typeof value !== 'string';
}
