import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/**
 * The largest upstream response body an adapter reads by default (64 MiB): past it a call fails
 * instead of holding, parsing and paging an answer that could exhaust the bridge's memory.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The largest JSON answer an adapter parses (4 MiB); a larger one is passed on as the text it came
 * as. Parsing is synchronous, on the event loop every caller shares: 64 MiB of `[{},{},…]` took
 * 17 s and 2 GB, 4 MiB of it ~0.3 s.
 */
export const MAX_PARSED_JSON_BYTES = 4 * 1024 * 1024;

/**
 * Reads an upstream response body whole, failing with `tooLarge()` past `maxBytes` (the body is
 * destroyed, so the rest is never downloaded) or when it ends early. Listeners rather than
 * `for await`, whose async iterator costs more than a small body.
 *
 * @example const bytes = await readResponseBody(answer.body, MAX_RESPONSE_BYTES, () => new Error('too large'));
 */
export function readResponseBody(body: Readable, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: Error) => {
      settled = true;
      reject(error);
    };
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        fail(tooLarge());
        body.destroy();
        return;
      }
      chunks.push(chunk);
    });
    body.once('end', () => {
      settled = true;
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    body.once('error', fail);
    // A body that stopped without its end or an error. Checked first: an Error costs its stack trace.
    body.once('close', () => {
      if (!settled) fail(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    });
  });
}

/**
 * The most the bridge reads of an authorization server's answer (a token, a discovery document,
 * a key set): 1 MiB, hundreds of times what one holds.
 */
export const MAX_AUTH_RESPONSE_BYTES = 1024 * 1024;

/**
 * `readResponseBody` for a fetch `Response`: its body as UTF-8 text (a byte order mark dropped, as
 * `text()` drops it), failing with `tooLarge()` past `maxBytes` (the body is cancelled, so the rest
 * is never downloaded).
 */
export async function readResponseText(
  response: Response,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<string> {
  if (!response.body) return '';
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  return new TextDecoder().decode(await readResponseBody(body, maxBytes, tooLarge));
}
