import {
  createServer,
  type IncomingMessage,
  type Server as NodeHttpServer,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mebibytes } from '../count-of.js';
import { excessiveDepth, TOO_DEEP_MESSAGE } from '../json-depth.js';
import type { Logger } from '../logger.js';
import { quote } from '../quote-input.js';
import type { JsonAnswer } from '../server/direct-call.js';
import type { EventStreamAnswer } from '../server/direct-session-call.js';
import { connectionsPerAddress, tooManyConnections } from './address-connections.js';
import { CallLimits, requestsIn } from './call-limits.js';
import type { HttpHandler } from './http-handler.js';
import type { ListenAddress } from './listen-address.js';
import { listenEnded, longStreamsOf } from './long-streams.js';
import { isRefusal, readBody } from './read-body.js';
import { RefusalLog } from './refusal-log.js';
import { headRequest, MAX_UNREAD_EVENT_BYTES, sendEvents, sendJson, sendResponse } from './send-response.js';
import { answerShutdown, type InFlight } from './shutdown-answers.js';

/** The longest delay a Node timer keeps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A listening HTTP server and how to reach and stop it. */
export interface RunningHttpServer {
  server: NodeHttpServer;
  /** The endpoint URL, e.g. `http://127.0.0.1:43123/mcp`. */
  url: string;
  close(): Promise<void>;
}

/** The limits that keep one client from exhausting the server; every field has a default. */
export interface HttpLimits {
  /** Largest request body, in bytes. Default 4 MiB. */
  maxRequestBodySize?: number;
  /** Time for a request's headers to arrive, in ms. Default 10 s. */
  headerTimeoutMs?: number;
  /** Time for a request's body to arrive once its headers are in, in ms. Default 10 s. */
  bodyTimeoutMs?: number;
  /** Open connections at once; more are closed on accept. Default 1,024. */
  maxConnections?: number;
  /**
   * Open connections from one address (an IPv6 /64) at once; more are answered 503 and closed on
   * accept. Default a quarter of `maxConnections` (256).
   */
  maxConnectionsPerAddress?: number;
  /** `tools/call` requests one caller may have running at once over HTTP. Default 32. */
  maxCallsPerCaller?: number;
  /**
   * Streams without an end of their own (`subscriptions/listen`, initialize-era GET) one caller
   * may hold open at once; more get 429. Default 32.
   */
  maxStreamsPerCaller?: number;
  /** How long such a stream stays open before the server ends it (clients open it again), in ms. Default 10 minutes. */
  streamLifetimeMs?: number;
}

const HTTP_LIMIT_DEFAULTS: Required<Omit<HttpLimits, 'maxConnectionsPerAddress'>> = {
  maxRequestBodySize: 4 * 1024 * 1024,
  headerTimeoutMs: 10_000,
  bodyTimeoutMs: 10_000,
  maxConnections: 1_024,
  maxCallsPerCaller: 32,
  maxStreamsPerCaller: 32,
  streamLifetimeMs: 600_000,
};

// A Host header is a name or an [IPv6] literal and an optional port: no userinfo, path or spaces.
const HOST_HEADER = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Serves `handler` with `node:http` on `address`. A connection past its address's share is
 * answered 503 and closed as it is accepted. Steps for each request: check the request line and
 * Host → `admit` (headers only: Host, Origin, path, authentication) → read the body within its
 * size and time limits → check its nesting depth and parse it → take the caller's call slots, and
 * its stream slots for a listen or GET stream (which then ends after its lifetime) → hand it to the
 * handler. Nothing is read or parsed for a request that the headers already refuse.
 */
export async function serveHttp(
  handler: HttpHandler,
  address: ListenAddress,
  options: HttpLimits & {
    path?: string;
    log?: Logger;
    onerror?: (error: Error) => void;
    /** Trusted reverse proxies: not capped per address (see `HttpTransportOptions.proxies`). */
    proxies?: (address: string | undefined) => boolean;
  } = {},
): Promise<RunningHttpServer> {
  const given = { ...HTTP_LIMIT_DEFAULTS, ...definedOnly(options) };
  const limits: Required<HttpLimits> = {
    ...given,
    // Node runs a timer set past 2^31 - 1 ms at once: a "never" of a larger value means ~24.8 days.
    headerTimeoutMs: Math.min(given.headerTimeoutMs, MAX_TIMER_MS),
    bodyTimeoutMs: Math.min(given.bodyTimeoutMs, MAX_TIMER_MS),
    streamLifetimeMs: Math.min(given.streamLifetimeMs, MAX_TIMER_MS),
    maxConnectionsPerAddress:
      options.maxConnectionsPerAddress ?? Math.max(1, Math.floor(given.maxConnections / 4)),
  };
  const refusals = options.log ? new RefusalLog(options.log) : undefined;
  const calls = new CallLimits(limits.maxCallsPerCaller);
  const streams = new CallLimits(limits.maxStreamsPerCaller);
  const admitConnection = connectionsPerAddress(limits.maxConnectionsPerAddress, options.proxies);
  // Connections refused on accept: a request the parser still reads from one is not served.
  const refusedConnections = new WeakSet<Socket>();
  const inFlight = new Set<InFlight>();
  let closing = false;

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    if (refusedConnections.has(req.socket)) {
      req.socket.destroy();
      return;
    }
    const peer = { ...(req.socket.remoteAddress ? { address: req.socket.remoteAddress } : {}) };
    const from = peer.address ?? 'an unknown address';
    const host = req.headers.host ?? '';
    // The regex keeps userinfo and paths out; the URL parser then rejects what only looks like a
    // host (a port past 65535, `[:::]`), which would otherwise fail later as a 500. Two Host
    // headers are refused (RFC 9112, 3.2): Node keeps the first, a proxy might route by another.
    if (
      !HOST_HEADER.test(host) ||
      !URL.canParse(`http://${host}`) ||
      (req.headersDistinct.host?.length ?? 0) > 1
    ) {
      refusals?.refused('Host header', `${req.method} from ${from}: Host ${quote(host)}`);
      writeError(res, 400, -32000, 'Bad Request: the Host header must be a host name or address and a port');
      return;
    }
    // An absolute-form (`http://other/mcp`) or asterisk-form (`*`) target: only a proxy is sent those.
    if (!req.url?.startsWith('/')) {
      refusals?.refused('request target', `${req.method} from ${from}: target ${quote(req.url ?? '')}`);
      writeError(res, 400, -32000, 'Bad Request: the request target must be a path (origin form, /mcp)');
      return;
    }
    // The routes compare the parsed path, which resolves `..`, `%2e%2e` and `\`: a proxy routing on
    // the raw path sent `/oauth/..\mcp` (its unauthenticated sign-in location, forwarding a client's
    // own identity header) to the MCP endpoint. A path only a parser makes into another is refused.
    if (!isPlainPath(req.url)) {
      refusals?.refused(
        'path',
        `${req.method} from ${from}: path ${quote(req.url)} holds a dot segment or a backslash`,
      );
      writeError(
        res,
        400,
        -32000,
        'Bad Request: the path holds dot segments or backslashes; send it as resolved',
      );
      return;
    }
    // One `Request` per HTTP request, for the header checks and the handler alike.
    const abort = new AbortController();
    const request = headRequest(req, host);
    const admission = await handler.admit(request, peer);
    if (admission instanceof Response) {
      await refuse(req, res, admission, limits);
      return;
    }
    if (closing) {
      writeError(res, 503, -32000, 'The server is shutting down.');
      return;
    }
    let parsed: unknown;
    let ids: Array<string | number> = [];
    let requests: ReturnType<typeof requestsIn> = [];
    let release = () => {};
    if (req.method === 'POST') {
      const text = await readBody(req, {
        limit: limits.maxRequestBodySize,
        deadlineMs: limits.bodyTimeoutMs,
      });
      if (isRefusal(text)) {
        if (text.status === 408) refusals?.refused('slow body', `POST from ${from}: ${text.message}`);
        writeError(res, text.status, text.code, text.message, { close: true });
        return;
      }
      if (excessiveDepth(text) !== undefined) {
        writeError(res, 400, -32700, TOO_DEEP_MESSAGE);
        return;
      }
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch (error) {
        writeError(res, 400, -32700, `Parse error: ${(error as Error).message}`);
        return;
      }
      requests = requestsIn(parsed);
      ids = requests.map((request) => request.id);
      const count = requests.filter((request) => request.method === 'tools/call').length;
      const taken = calls.acquire(admission.quotaKey, count);
      if (!taken) {
        refusals?.refused('calls per caller', `${admission.quotaKey} over ${limits.maxCallsPerCaller} calls`);
        writeError(
          res,
          429,
          -32000,
          `Too Many Requests: ${count} more call(s) would exceed the ${limits.maxCallsPerCaller} calls one caller may run at once (${calls.inFlight(admission.quotaKey)} running); retry when some finish`,
          { retryAfter: 1 },
        );
        return;
      }
      release = taken;
    }
    const long = longStreamsOf(req.method, requests);
    let releaseStreams = () => {};
    if (long.count > 0) {
      const taken = streams.acquire(admission.quotaKey, long.count);
      if (!taken) {
        release();
        refusals?.refused(
          'streams per caller',
          `${admission.quotaKey} over ${limits.maxStreamsPerCaller} open streams`,
        );
        writeError(
          res,
          429,
          -32000,
          `Too Many Requests: ${long.count} more stream(s) would exceed the ${limits.maxStreamsPerCaller} listen, GET or tasks/result streams one caller may hold open (${streams.inFlight(admission.quotaKey)} open); close one, or retry later`,
          { retryAfter: 5 },
        );
        return;
      }
      releaseStreams = taken;
    }
    // A stream without an end of its own is ended by the server after its lifetime; the client
    // opens it again (a listen is answered with its result first, the spec's graceful close).
    const lifetime = long.endless ? new AbortController() : undefined;
    const lifetimeTimer = lifetime && setTimeout(() => lifetime.abort(), limits.streamLifetimeMs);
    lifetimeTimer?.unref();
    // A header set before the handler's writeHead makes the response's headers readable later
    // (`getHeader`), which the shutdown answer needs to tell an SSE stream from a JSON body.
    res.setHeader('x-content-type-options', 'nosniff');
    const flight: InFlight = { res, ids };
    inFlight.add(flight);
    let finished = false;
    // Released when the connection closes, unless the handler holds the slots until its calls end
    // (an initialize-era session's, which run on after their client goes away; a 2026-07-28 call's,
    // whose tool may run on after the hang-up that cancels it).
    let held = false;
    const holdCalls = () => {
      held = true;
      return release;
    };
    res.once('close', () => {
      inFlight.delete(flight);
      releaseStreams();
      clearTimeout(lifetimeTimer);
      if (!held) release();
      if (!finished) abort.abort();
    });
    if (res.destroyed) abort.abort();
    // The body was read and parsed once here; the handler and the SDK layers reuse the parsed value.
    let response: Response | JsonAnswer | EventStreamAnswer;
    try {
      response = await handler.fetch(request, {
        admission,
        signal: abort.signal,
        holdCalls,
        ...(parsed === undefined ? {} : { parsedBody: parsed }),
      });
    } catch (error) {
      release();
      releaseStreams();
      options.onerror?.(error instanceof Error ? error : new Error(String(error)));
      response = Response.json(
        {
          jsonrpc: '2.0',
          error: { code: -32603, message: 'Internal server error' },
          id: ids.length === 1 ? ids[0] : null,
        },
        { status: 500 },
      );
    }
    let cut = false;
    if (response instanceof Response) {
      const end = lifetime && { signal: lifetime.signal, farewell: long.listenIds.map(listenEnded).join('') };
      cut = await sendResponse(res, response, abort.signal, end);
    } else if ('open' in response) cut = await sendEvents(res, response);
    else sendJson(res, response);
    if (cut)
      refusals?.refused(
        'unread stream',
        `${req.method} from ${from}: more than ${mebibytes(MAX_UNREAD_EVENT_BYTES)} left unread, closed`,
      );
    finished = true;
  };

  const server = createServer(
    {
      headersTimeout: limits.headerTimeoutMs,
      requestTimeout: limits.headerTimeoutMs + limits.bodyTimeoutMs + 1_000,
      // How often Node checks the two timeouts above; its default (30 s) would make them loose.
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, limits.headerTimeoutMs / 2)),
    },
    (req, res) => {
      serve(req, res).catch((error: unknown) => {
        options.onerror?.(error instanceof Error ? error : new Error(String(error)));
        if (!res.headersSent) writeError(res, 500, -32603, 'Internal error');
        else res.destroy();
      });
    },
  );
  server.keepAliveTimeout = 30_000;
  server.maxConnections = limits.maxConnections;
  server.on('drop', (data?: { remoteAddress?: string }) =>
    refusals?.refused(
      'connections',
      `a connection from ${data?.remoteAddress ?? 'an unknown address'}: ${limits.maxConnections} are open`,
    ),
  );
  server.on('connection', (socket: Socket) => {
    if (admitConnection(socket)) return;
    refusedConnections.add(socket);
    refusals?.refused(
      'connections per address',
      `a connection from ${socket.remoteAddress ?? 'an unknown address'}: ${limits.maxConnectionsPerAddress} from it are open`,
    );
    // Answered before any request is read, and closed once written: a refused connection holds
    // nothing, so refusing one costs no more than accepting it.
    socket.on('error', () => {});
    socket.end(tooManyConnections(limits.maxConnectionsPerAddress), () => socket.destroy());
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const timeout = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (timeout) refusals?.refused('slow headers', `from ${socket.remoteAddress ?? 'an unknown address'}`);
    if (socket.writable && error.code !== 'ECONNRESET') {
      const status = timeout
        ? '408 Request Timeout'
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : '400 Bad Request';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    }
    socket.destroy();
  });
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
      closing = true;
      // Calls in flight get an answer saying why, rather than a connection cut mid-stream.
      for (const flight of inFlight) answerShutdown(flight);
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      refusals?.close();
    },
  };
}

// Bodies up to this size are drained normally after a refusal: the connection stays reusable.
const SMALL_BODY = 64 * 1024;

/**
 * Answers a request refused on its headers. A small body is drained by Node as usual. A large or
 * chunked one is never read: the refusal is written straight to the socket, which reads no further
 * (Node stops reading once the unread request fills its small buffer), and the connection is
 * closed a moment later, after the client has had time to read the answer while still sending.
 * So a flood of large unauthenticated bodies costs neither memory nor CPU.
 */
async function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
  limits: Pick<Required<HttpLimits>, 'bodyTimeoutMs'>,
) {
  const declared = Number(req.headers['content-length'] ?? 0);
  const large =
    req.method !== 'GET' &&
    req.method !== 'HEAD' &&
    (declared > SMALL_BODY || req.headers['transfer-encoding'] !== undefined);
  if (!large) {
    await sendResponse(res, response, new AbortController().signal);
    return;
  }
  const body = Buffer.from(await response.text());
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`];
  for (const [name, value] of response.headers) {
    if (name !== 'content-length' && name !== 'connection') lines.push(`${name}: ${value}`);
  }
  lines.push(`content-length: ${body.length}`, 'connection: close', '', '');
  const socket = req.socket;
  socket.write(Buffer.concat([Buffer.from(lines.join('\r\n')), body]));
  const timer = setTimeout(() => socket.destroy(), Math.min(limits.bodyTimeoutMs, 2_000));
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

function writeError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  options: { close?: boolean; retryAfter?: number } = {},
): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(options.close ? { connection: 'close' } : {}),
    ...(options.retryAfter === undefined ? {} : { 'retry-after': String(options.retryAfter) }),
  });
  res.end(body);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

// A request path that means what it says: no `.` or `..` segment (encoded or not), no backslash,
// so the parsed path the routes compare is the one every proxy in front saw.
function isPlainPath(url: string): boolean {
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  if (path.includes('\\') || /%5c/i.test(path)) return false;
  return !path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
}
