import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the upstream saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** A real HTTP API on 127.0.0.1:0 for the adapter to call. Dispose it to stop it. */
export interface Upstream extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/v1` */
  url: string;
  origin: string;
  requests: SeenRequest[];
  /** How many times each `/flaky?key=` was hit. */
  hits: Map<string, number>;
  /** When (`Date.now()`) each `/flaky?key=` hit arrived, in order. */
  arrivals: Map<string, number[]>;
  /** OAuth2 tokens issued so far. */
  tokens: string[];
  close(): Promise<void>;
}

// The smallest valid PNG (1×1, transparent) and a few bytes that are not UTF-8.
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
export const NOT_UTF8 = Buffer.from([0x25, 0x50, 0x44, 0x46, 0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28]);

/**
 * Starts the test API. Most routes echo the request as JSON (`{method, url, headers, body}`);
 * `/binary/*`, `/status/*`, `/flaky`, `/slow`, `/drift`, `/big` and `/oauth/token` behave as named.
 */
export async function startUpstream(): Promise<Upstream> {
  const requests: SeenRequest[] = [];
  const hits = new Map<string, number>();
  const arrivals = new Map<string, number[]>();
  const tokens: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks),
      };
      requests.push(seen);
      route(seen, req, res, hits, arrivals, tokens);
    });
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    requests,
    hits,
    arrivals,
    tokens,
    close,
    [Symbol.asyncDispose]: close,
  };
}

function json(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

function echo(seen: SeenRequest) {
  return { method: seen.method, url: seen.url, headers: seen.headers, body: seen.body.toString('utf8') };
}

function route(
  seen: SeenRequest,
  req: IncomingMessage,
  res: ServerResponse,
  hits: Map<string, number>,
  arrivals: Map<string, number[]>,
  tokens: string[],
): void {
  const url = new URL(seen.url, 'http://upstream');
  const path = url.pathname.replace(/^\/v1/, '');
  if (path === '/oauth/token') {
    const form = new URLSearchParams(seen.body.toString());
    const [id, secret] = Buffer.from((seen.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':');
    if (form.get('grant_type') !== 'client_credentials' || id !== 'client-1' || secret !== 'shh') {
      json(res, 401, { error: 'invalid_client' });
      return;
    }
    const token = `token-${tokens.length + 1}-${form.get('scope') ?? ''}`;
    tokens.push(token);
    json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
    return;
  }
  if (path === '/auth/oauth') {
    // A token counts only while it is the newest one: older ones are "revoked".
    const newest = tokens.at(-1);
    if (!newest || seen.headers.authorization !== `Bearer ${newest}`) {
      json(res, 401, { error: 'invalid_token' });
      return;
    }
  }
  if (path.startsWith('/binary/')) {
    const kind = path.slice('/binary/'.length);
    const [type, body] =
      kind === 'png'
        ? ['image/png', PNG]
        : kind === 'big-png'
          ? ['image/png', Buffer.alloc(2 * 1024 * 1024, 7)]
          : kind === 'wav'
            ? ['audio/wav', Buffer.from('RIFF\x00\x00\x00\x00WAVEfmt ', 'latin1')]
            : kind === 'pdf'
              ? ['application/pdf', NOT_UTF8]
              : ['application/octet-stream', NOT_UTF8];
    res.writeHead(200, { 'content-type': type as string });
    res.end(body);
    return;
  }
  if (path.startsWith('/status/')) {
    const code = Number(path.slice('/status/'.length));
    if (code === 0) {
      // Status 0: the connection is reset without an answer.
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string> = code === 429 || code === 503 ? { 'retry-after': '0' } : {};
    json(res, code, { error: `status ${code}`, detail: 'x'.repeat(code === 500 ? 10_000 : 10) }, headers);
    return;
  }
  if (path === '/flaky' || path === '/flaky/form') {
    // Fails the first `failures` hits of `key` (default 2), then echoes. The failure is `status`
    // (default 503) with `Retry-After: retryAfter` (default 0; `none` sends none, `date:N` an
    // HTTP date N seconds ahead), or with `fail=reset` a connection closed without an answer.
    const key = url.searchParams.get('key') ?? '';
    const count = (hits.get(key) ?? 0) + 1;
    hits.set(key, count);
    arrivals.set(key, [...(arrivals.get(key) ?? []), Date.now()]);
    const failures = Number(url.searchParams.get('failures') ?? 2);
    if (count <= failures) {
      if (url.searchParams.get('fail') === 'reset') {
        req.socket.destroy();
        return;
      }
      const after = url.searchParams.get('retryAfter') ?? '0';
      const headers: Record<string, string> =
        after === 'none'
          ? {}
          : after.startsWith('date:')
            ? { 'retry-after': new Date(Date.now() + Number(after.slice(5)) * 1000).toUTCString() }
            : { 'retry-after': after };
      json(res, Number(url.searchParams.get('status') ?? 503), { error: 'busy' }, headers);
      return;
    }
    json(res, 200, echo(seen));
    return;
  }
  if (path === '/slow') {
    const timer = setTimeout(() => json(res, 200, { late: true }), 5_000);
    req.socket.once('close', () => clearTimeout(timer));
    return;
  }
  if (path === '/drift') {
    json(res, 200, { count: 'not a number' });
    return;
  }
  if (path === '/text-response') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('plain text, ünïcödé');
    return;
  }
  if (path === '/big') {
    const count = Number(url.searchParams.get('count') ?? 5000);
    const rows = Array.from({ length: count }, (_, i) => ({
      id: i,
      name: `row ${i}`,
      note: 'lorem ipsum dolor',
    }));
    json(res, 200, { rows });
    return;
  }
  if (seen.method === 'DELETE') {
    res.writeHead(204);
    res.end();
    return;
  }
  json(res, seen.method === 'POST' ? 201 : 200, echo(seen));
}
