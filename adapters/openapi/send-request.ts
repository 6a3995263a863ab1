// Why a loop of our own rather than undici's RetryAgent / interceptors.retry (read in undici 7.30.2,
// lib/handler/retry-handler.js; the method, status and error-code lists are configurable, these are not):
// - its backoff wait, line 283 `setTimeout(() => cb(null), retryTimeout)`, ignores the call's signal:
//   after a connection error nothing is in flight to abort, so a cancel or our deadline lands only
//   when the timer fires (a cancel 100 ms after ECONNREFUSED returned after 9 s, as ECONNREFUSED);
// - lines 279-280 `retryAfterHeader > 0 ? Math.min(retryAfterHeader, maxTimeout)` retry a server
//   that asked for an hour after the cap, earlier than it allowed; we hand its answer back instead.
//   `Retry-After: 0` falls through to the backoff (minTimeout) rather than retrying at once;
// - neither the last response nor a connection error says how many attempts were made, which our
//   messages report, and line 443 resumes a half-read body with a `range` header the spec never declared.
// A custom `retry` callback could fix the first three only by re-implementing this whole decision
// (methods, statuses, codes, Retry-After, backoff, an abortable wait): undici would only re-dispatch.
import type { Dispatcher } from 'undici';
import { BridgeError, describeError, MAX_RESPONSE_BYTES, readResponseBody } from '../../src/index.js';
import type { HttpRequest } from './build-request.js';
import { CallStop } from './call-stop.js';
import { checkedConnector } from './checked-lookup.js';
import type { AddressGuard } from './guard-addresses.js';

/** What came back, body as raw bytes: decoding is the result step's business (binary stays binary). */
export interface HttpResponse {
  status: number;
  reason: string;
  headers: Record<string, string>;
  body: Buffer;
  /** How many attempts it took. */
  attempts: number;
}

export interface SendOptions {
  timeoutMs: number;
  retries: number;
  /** Whether the method may be repeated (GET, HEAD, OPTIONS, PUT, DELETE, TRACE). */
  idempotent: boolean;
  signal: AbortSignal;
  /** Largest body read, in bytes; more fails the call rather than the process. */
  maxBodyBytes?: number;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const RETRY_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const MAX_RETRY_WAIT_MS = 30_000;

/** Sends requests over one keep-alive pool, with timeouts and retries. One per source. */
export class HttpSender {
  // undici costs more to import than most specs cost to load: it is loaded on the first call.
  #agent: Promise<Dispatcher> | undefined;
  #guard: AddressGuard | undefined;

  /**
   * The pool for requests this sender does not make itself (an OAuth2 token): its connections get
   * the same address checks as the calls'.
   */
  dispatcher(): Promise<Dispatcher> {
    const guard = this.#guard;
    this.#agent ??= import('undici').then(
      ({ Agent, buildConnector }) =>
        new Agent({
          keepAliveTimeout: 10_000,
          connections: 64,
          ...(guard ? { connect: checkedConnector(buildConnector, guard.allow, guard.refuse) } : {}),
        }),
    );
    return this.#agent;
  }

  /**
   * From now on, connects only to the addresses `guard` allows (see `checkedConnector`). A pool
   * made before is closed, so that no connection escapes the guard whatever the order of calls.
   */
  guardAddresses(guard: AddressGuard): void {
    this.#guard = guard;
    const previous = this.#agent;
    this.#agent = undefined;
    if (previous) void previous.then((agent) => agent.close());
  }

  /**
   * Sends `request`. Retries only idempotent methods, on 429/502/503/504 and connection failures,
   * with exponential backoff or the server's `Retry-After`. Throws a `BridgeError` that says what
   * failed and whether trying again makes sense.
   */
  async send(request: HttpRequest, options: SendOptions): Promise<HttpResponse> {
    if (request.body instanceof FormData) await encodeMultipart(request);
    // One timer and one listener per call: cheaper than AbortSignal.timeout + AbortSignal.any.
    const stop = new CallStop();
    const deadline = { passed: false };
    const timer = setTimeout(() => {
      deadline.passed = true;
      stop.abort(new Error('timeout'));
    }, options.timeoutMs);
    const cancel = () => stop.abort(options.signal.reason);
    options.signal.addEventListener('abort', cancel, { once: true });
    if (options.signal.aborted) cancel();
    try {
      return await this.#attempts(request, options, stop, deadline);
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', cancel);
    }
  }

  async #attempts(
    request: HttpRequest,
    options: SendOptions,
    signal: CallStop,
    deadline: { passed: boolean },
  ): Promise<HttpResponse> {
    const retries = options.idempotent ? options.retries : 0;
    for (let attempt = 1; ; attempt++) {
      let response: HttpResponse | undefined;
      let failure: unknown;
      try {
        response = await this.#once(request, signal, options.maxBodyBytes ?? MAX_RESPONSE_BYTES);
        response.attempts = attempt;
      } catch (error) {
        failure = error;
      }
      const stopped = endedError(request, options, deadline, attempt, failure);
      if (stopped) throw stopped;
      const retryable = response ? RETRY_STATUSES.has(response.status) : RETRY_CODES.has(errorCode(failure));
      if (retryable && attempt <= retries) {
        const wait = response ? retryAfterMs(response.headers['retry-after']) : undefined;
        // Jitter before the cap, so a long backoff never exceeds it and ends the retries early.
        const delay =
          wait ?? Math.min(MAX_RETRY_WAIT_MS, 200 * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5));
        // A server asking for more than the cap is not retried early: its answer goes back as is.
        if (delay <= MAX_RETRY_WAIT_MS) {
          await sleep(delay, signal);
          // Cancelled or timed out while waiting: say so now, without sending another attempt.
          const waited = endedError(request, options, deadline, attempt, failure);
          if (waited) throw waited;
          continue;
        }
      }
      if (response) return response;
      throw connectionError(request, failure, attempt);
    }
  }

  async close(): Promise<void> {
    if (this.#agent) await (await this.#agent).close();
  }

  async #once(request: HttpRequest, signal: CallStop, maxBody: number): Promise<HttpResponse> {
    const agent = await this.dispatcher();
    const answer = await agent.request({
      origin: request.origin,
      path: request.path,
      method: request.method as Dispatcher.HttpMethod,
      headers: request.headers,
      body: request.body as Dispatcher.DispatchOptions['body'],
      signal,
    });
    const body = await readResponseBody(
      answer.body,
      maxBody,
      () => new BridgeError('upstream_failed', `the response body is larger than ${maxBody} bytes`),
    );
    const headers: Record<string, string> = {};
    for (const key in answer.headers) {
      const value = answer.headers[key];
      if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
    }
    return {
      status: answer.statusCode,
      reason: statusText(answer.statusCode),
      headers,
      body,
      attempts: 1,
    };
  }
}

// The dispatcher takes bytes, not FormData: let the web `Response` write the multipart body and
// its boundary once, so retries resend the same bytes.
async function encodeMultipart(request: HttpRequest): Promise<void> {
  const encoded = new Response(request.body as FormData);
  request.body = new Uint8Array(await encoded.arrayBuffer());
  request.headers['content-type'] = encoded.headers.get('content-type') ?? 'multipart/form-data';
}

/** The error for a call cancelled by the client or past its deadline, if it is either. */
function endedError(
  request: HttpRequest,
  options: SendOptions,
  deadline: { passed: boolean },
  attempts: number,
  failure: unknown,
): BridgeError | undefined {
  if (options.signal.aborted)
    return new BridgeError('aborted', 'The call was cancelled.', { cause: failure });
  if (!deadline.passed) return undefined;
  return new BridgeError(
    'timeout',
    `the upstream ${request.origin} did not answer within ${options.timeoutMs} ms` +
      `${attempts > 1 ? ` (${attempts} attempts)` : ''}; retrying may help, or raise --timeout`,
    { cause: failure },
  );
}

function errorCode(error: unknown): string {
  let current = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return '';
}

function connectionError(request: HttpRequest, error: unknown, attempts: number): BridgeError {
  if (error instanceof BridgeError) return error;
  const code = errorCode(error);
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  let what: string;
  if (code === 'ECONNREFUSED')
    what = `connection refused by ${request.origin}${tries}: the upstream is not running or not reachable; retry once it is up`;
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    what = `the host of ${request.origin} cannot be resolved${tries}; check --base-url`;
  else if (
    /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code) ||
    /certificate|TLS|SSL/i.test(describeError(error))
  ) {
    what = `TLS failure talking to ${request.origin} (${code || 'handshake'}); retrying will not help until the certificate problem is fixed`;
  } else if (RETRY_CODES.has(code))
    what = `the connection to ${request.origin} failed (${code})${tries}; retrying may help`;
  else what = `the request to ${request.origin} failed${tries}: ${describeError(error)}`;
  return new BridgeError('upstream_failed', what, { cause: error });
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds (RFC 9110 §10.2.3). */
function retryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, stop: CallStop): Promise<boolean> {
  return new Promise((resolve) => {
    if (stop.aborted) {
      resolve(false);
      return;
    }
    const timer = setTimeout(() => {
      stop.off('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    stop.once('abort', onAbort);
  });
}

// Node's table of reason phrases, from its HTTP module, loaded on the first answer: a bridge on
// stdio otherwise never loads it (~2 ms of a start).
let reasons: Record<number, string | undefined> | undefined;
function statusText(status: number): string {
  reasons ??= process.getBuiltinModule('node:http').STATUS_CODES;
  return reasons[status] ?? '';
}
