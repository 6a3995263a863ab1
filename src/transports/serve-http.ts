import { createServer, type Server as NodeHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { HttpHandler } from './http-handler.js';

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
  const nodeHandler = toNodeHandler(handler, {
    ...(options.maxRequestBodySize === undefined ? {} : { maxRequestBodySize: options.maxRequestBodySize }),
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });
  const server = createServer((req, res) => {
    void nodeHandler(req, res);
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
