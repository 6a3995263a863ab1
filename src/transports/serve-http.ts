import {
  createServer,
  type IncomingMessage,
  type Server as NodeHttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpHandler } from './http-handler.js';

// A body over the limit is refused with 413 but still read (and dropped) up to a few times the
// limit, so that the client finishes sending and reads the answer instead of a broken pipe.
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = Number(req.headers['content-length'] ?? 0) > limit;
    if (refused) reject(new Error('too large'));
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit * 4) req.destroy();
      if (refused) return;
      if (size > limit) {
        refused = true;
        chunks.length = 0;
        reject(new Error('too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function writeError(res: ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body);
}

/** Where to listen: `PORT`, `HOST:PORT` or `[IPv6]:PORT`. Port 0 picks a free port. */
export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses `--http [HOST:]PORT`; the host defaults to 127.0.0.1 so nothing is exposed by accident. */
export function parseListenAddress(value: string): ListenAddress {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65_535) {
    throw new Error(`--http expects [HOST:]PORT (e.g. 8080 or 0.0.0.0:8080), got "${value}"`);
  }
  const host = (match[1] ?? '127.0.0.1').replace(/^\[|\]$/g, '');
  return { host, port };
}

/** Whether `host` only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** A listening HTTP server and how to reach and stop it. */
export interface RunningHttpServer {
  server: NodeHttpServer;
  /** The endpoint URL, e.g. `http://127.0.0.1:43123/mcp`. */
  url: string;
  close(): Promise<void>;
}

/** Serves `handler` with `node:http` on `address`. */
export async function serveHttp(
  handler: HttpHandler,
  address: ListenAddress,
  options: { path?: string; maxRequestBodySize?: number; onerror?: (error: Error) => void } = {},
): Promise<RunningHttpServer> {
  // Imported here: its HTTP layer loads Node's fetch implementation, which stdio never needs.
  const { toNodeHandler } = await import('@modelcontextprotocol/node');
  const nodeHandler = toNodeHandler(handler, {
    ...(options.maxRequestBodySize === undefined ? {} : { maxRequestBodySize: options.maxRequestBodySize }),
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });
  const maxBody = options.maxRequestBodySize ?? 4 * 1024 * 1024;
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      void nodeHandler(req, res);
      return;
    }
    // The body is read and parsed once here; the SDK layers reuse the parsed value instead of
    // cloning and re-reading the request (a third of the per-call cost in profiles).
    readBody(req, maxBody).then(
      (text) => {
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch (error) {
          writeError(res, 400, -32700, `Parse error: ${(error as Error).message}`);
          return;
        }
        void nodeHandler(req, res, parsed);
      },
      () => writeError(res, 413, -32000, `Payload Too Large: the limit is ${maxBody} bytes`),
    );
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    server,
    url: `http://${host}:${bound.port}${options.path ?? '/mcp'}`,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
