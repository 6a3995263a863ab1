import { isPlainObject } from '../plain-object.js';
import { clip } from '../quote-input.js';
import { MAX_URI_CHARS } from '../request-bounds.js';

// Some of the SDK's own answers quote what a request carried, whole: "Unsupported protocol
// version: …" (and again in `data.requested`), "the request headers and body disagree: …" (the
// body's method, name or URI and the header's). A request may carry megabytes there (4 MiB over
// HTTP, 10 MiB a line over stdio), and the answer came back as large, two or three times over.
// Every error answer is bounded here, where it leaves the bridge, whoever wrote it: its message to
// `MAX_MESSAGE_CHARS`, each string in its data to `MAX_DATA_CHARS`. The bridge's own messages
// quote at most 100 characters of a value (see quote-input.ts) and are never cut here.

/** Characters of an error answer's message sent. */
const MAX_MESSAGE_CHARS = 1_000;
/** Characters of each string in an error answer's data: a URI is named whole up to its bound. */
const MAX_DATA_CHARS = MAX_URI_CHARS;

/**
 * `answer` with its error bounded (see above), or `answer` itself when nothing is cut: the
 * ordinary case, which allocates nothing.
 */
export function clipErrorAnswer<T>(answer: T): T {
  const error = isPlainObject(answer) ? answer.error : undefined;
  if (!isPlainObject(error)) return answer;
  const message = typeof error.message === 'string' ? clip(error.message, MAX_MESSAGE_CHARS) : error.message;
  const data = clipStrings(error.data);
  if (message === error.message && data === error.data) return answer;
  return {
    ...(answer as object),
    error: { ...error, message, ...(data === undefined ? {} : { data }) },
  } as T;
}

// `value` with every string longer than `MAX_DATA_CHARS` cut, copied only where something is.
function clipStrings(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return clip(value, MAX_DATA_CHARS);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const [key, item] of Object.entries(value)) {
    const cut = clipStrings(item, depth + 1);
    if (cut === item) continue;
    copy ??= Array.isArray(value) ? [...value] : { ...value };
    (copy as Record<string, unknown>)[key] = cut;
  }
  return copy ?? value;
}

/**
 * An HTTP answer the SDK made, with a JSON error body bounded as `clipErrorAnswer` bounds it: read
 * only for a failed request (successful answers and event streams go out untouched). The SDK
 * writes its error bodies with `Response.json`, without a length, so every one is read: they are
 * short, and not on the way of a successful call.
 */
export async function clipErrorResponse(response: Response): Promise<Response> {
  if (response.ok || !response.headers.get('content-type')?.includes('application/json')) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, response);
  }
  const clipped = clipErrorAnswer(body);
  if (clipped === body) return new Response(text, response);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(clipped), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
