import type { Readable } from 'node:stream';

/**
 * Reads a response body whole, failing past `maxBytes` (the body is destroyed) or when it ends
 * early. Listeners rather than `for await`, whose async iterator costs more than a small body.
 */
export function readBody(body: Readable, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
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
