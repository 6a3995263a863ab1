import { isIP } from 'node:net';

// Where an HTTP server listens, apart from the server itself: the command line and the auth
// settings read it before anything is served, and importing the server for that would evaluate it
// (and the SDK under it) before a spec's read has started, instead of while the read is in flight
// (see serve.ts).

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

/**
 * Whether `host` only accepts connections from this machine. IPv6 may be bracketed, as a URL's
 * `hostname` writes it (`[::1]`).
 */
export function isLoopback(host: string): boolean {
  // An address literal only: a name that merely starts with "127." (127.example.com) may resolve
  // to any address, and a loopback bind is served without authentication.
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}
