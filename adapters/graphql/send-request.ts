import {
  BridgeError,
  clip,
  describeError,
  displayUrl,
  excessiveDepth,
  htmlPageTitle,
  isHtmlPage,
  MAX_JSON_DEPTH,
  MAX_PARSED_JSON_BYTES,
  MAX_RESPONSE_BYTES,
  mebibytes,
  readResponseBody,
} from '../../src/index.js';

/** One GraphQL-over-HTTP request. */
export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** Where and how requests go: shared by introspection and every tool. */
export interface Endpoint {
  url: string;
  headers: Record<string, string>;
  timeout: number;
  /** Per-caller credentials of tool calls (upstream sign-in); introspection goes without. */
  auth?: import('./sign-in.js').EndpointAuth;
}

/** What the endpoint answered: the HTTP status and the parsed body (or its text when not JSON). */
export interface GraphqlResponse {
  status: number;
  /** The parsed JSON body, or `undefined` when the body is not JSON or is too large to parse. */
  body: unknown;
  /** The bytes of a successful JSON-looking body larger than `maxParsedBytes`, left unparsed. */
  large?: number;
  /** The raw body text (kept for error messages). */
  text: string;
}

/**
 * POSTs `operation` as JSON (GraphQL over HTTP) and reads the answer whatever its status: the
 * caller decides what a 4xx with a GraphQL body means. Throws a `BridgeError` (`upstream_failed`,
 * `timeout` or `aborted`) when no whole answer arrives, naming the endpoint and the cause; an
 * answer larger than `MAX_RESPONSE_BYTES` is one (it is not read past the limit), and so is JSON
 * nested deeper than `MAX_JSON_DEPTH`. JSON over `maxParsedBytes` is left unparsed (`large`).
 */
export async function sendRequest(
  endpoint: Endpoint,
  operation: GraphqlRequest,
  signal?: AbortSignal,
  maxParsedBytes = MAX_PARSED_JSON_BYTES,
): Promise<GraphqlResponse> {
  const timeout = AbortSignal.timeout(endpoint.timeout);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const request = await loadRequest();
    const response = await request(endpoint.url, {
      method: 'POST',
      headers: {
        // graphql-response+json first: servers that know it answer errors with proper statuses.
        accept: 'application/graphql-response+json, application/json;q=0.9',
        'content-type': 'application/json',
        ...endpoint.headers,
      },
      body: JSON.stringify(operation),
      signal: combined,
    });
    const bytes = await readResponseBody(
      response.body,
      MAX_RESPONSE_BYTES,
      () =>
        new BridgeError(
          'upstream_failed',
          `the GraphQL endpoint ${displayUrl(endpoint.url)} answered with more than ${mebibytes(MAX_RESPONSE_BYTES)}, the most the bridge reads; select fewer fields or ask for smaller pages`,
        ),
    );
    // TextDecoder, as undici's own text(), drops a byte order mark JSON.parse would trip over.
    const text = new TextDecoder().decode(bytes);
    // Past the bound, passed on as the text it came as (see MAX_PARSED_JSON_BYTES).
    // A failed status or a body that is not JSON (an HTML page) is reported as such, unparsed.
    if (bytes.length > maxParsedBytes) {
      const json = response.statusCode < 400 && /^\s*\{/.test(text.slice(0, 1024));
      return { status: response.statusCode, body: undefined, text, ...(json ? { large: bytes.length } : {}) };
    }
    const body = parseJson(text);
    // JSON.parse does not recurse, but what follows it does: the result's own JSON, a client's parser.
    if (body !== undefined && excessiveDepth(text) !== undefined) {
      throw new BridgeError(
        'upstream_failed',
        `the GraphQL endpoint ${displayUrl(endpoint.url)} answered JSON nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects, more than the bridge passes on; select fewer nested fields`,
      );
    }
    return { status: response.statusCode, body, text };
  } catch (error) {
    if (error instanceof BridgeError) throw error;
    if (signal?.aborted) throw new BridgeError('aborted', 'The call was cancelled.', { cause: error });
    if (timeout.aborted) {
      throw new BridgeError(
        'timeout',
        `the GraphQL endpoint ${displayUrl(endpoint.url)} did not answer within ${endpoint.timeout} ms (raise --timeout)`,
        { cause: error },
      );
    }
    throw new BridgeError(
      'upstream_failed',
      `could not reach the GraphQL endpoint ${displayUrl(endpoint.url)}: ${networkCause(error)}`,
      { cause: error },
    );
  }
}

let undiciRequest: typeof import('undici').request | undefined;

// undici is loaded on the first request, not at start-up: a server built from --schema starts
// serving tools without paying for it (about a fifth of the bridge's start-up on a busy machine).
async function loadRequest(): Promise<typeof import('undici').request> {
  undiciRequest ??= (await import('undici')).request;
  return undiciRequest;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// undici hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`; say that, not "fetch failed".
function networkCause(error: unknown): string {
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } }).cause?.code ??
    (error as { code?: unknown }).code;
  const message = describeError(error);
  return typeof code === 'string' && !message.includes(code) ? `${code} (${message})` : message;
}

/**
 * Says what a body that is not a GraphQL response is, without dumping it: an HTML page (a web
 * page, a login wall or a proxy's error page, named by its title) or the first characters of text.
 */
export function describeNonGraphql(text: string): string {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (isHtmlPage(trimmed)) {
    const title = htmlPageTitle(trimmed);
    return `an HTML page${title ? ` ("${clip(title, 80)}")` : ''}, not a GraphQL response`;
  }
  const snippet = clip(trimmed, 300).trimEnd();
  return snippet ? `a body that is not a GraphQL response: ${snippet}` : 'an empty body';
}
