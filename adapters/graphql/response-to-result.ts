import {
  BridgeError,
  type ContentBlock,
  clipText,
  describeError,
  displayUrl,
  listSome,
  MAX_PARSED_JSON_BYTES,
  mebibytes,
  pageOutput,
  type ToolContext,
  type ToolResult,
} from '../../src/index.js';
import {
  describeNonGraphql,
  type Endpoint,
  type GraphqlRequest,
  type GraphqlResponse,
  sendRequest,
} from './send-request.js';

/** One entry of a GraphQL `errors` list, as kept for the model. */
interface KeptError {
  message: string;
  path?: unknown;
  locations?: unknown;
  extensions?: unknown;
}

/** Characters of result text shown inline; the rest is paged through the resource store. */
export const PAGE_SIZE = 20_000;
/** Errors listed in an error result's text; its JSON has all of them. */
const LISTED_ERRORS = 20;
/** Characters of one listed error's message, and of its path. */
const MESSAGE_CHARS = 500;

/**
 * Sends `operation` and turns the answer into a tool result. Never throws for upstream trouble:
 * network failures, timeouts and non-GraphQL HTTP answers become `isError` results naming the
 * cause. Only a cancelled call throws (the core reports it).
 */
export async function runOperation(
  endpoint: Endpoint,
  operation: GraphqlRequest,
  context: ToolContext,
  label: string,
): Promise<ToolResult> {
  let response: GraphqlResponse;
  // Signing in (a question to the user) happens before anything is sent, and its refusal is thrown.
  const send = async () => {
    const auth = await endpoint.auth?.headers(context);
    return {
      auth,
      response: await sendRequest(
        auth ? { ...endpoint, headers: { ...endpoint.headers, ...auth } } : endpoint,
        operation,
        context.signal,
      ),
    };
  };
  try {
    let sent = await send();
    // A signed-in token refused early (revoked, expired): refresh it and try once more.
    if (sent.response.status === 401 && sent.auth && endpoint.auth?.rejected(context, sent.auth))
      sent = await send();
    response = sent.response;
  } catch (error) {
    if (!(error instanceof BridgeError) || error.code === 'aborted' || error.code === 'declined') throw error;
    return { content: [{ type: 'text', text: `${label} failed: ${describeError(error)}` }], isError: true };
  }
  return responseToResult(response, displayUrl(endpoint.url), context, label);
}

/**
 * `data` → JSON text plus `structuredContent`; a non-empty `errors` → `isError` listing the first
 * messages and keeping every message, `path` and `extensions` and the partial `data` in its JSON;
 * long JSON → first page plus links, without `structuredContent`.
 */
export async function responseToResult(
  response: GraphqlResponse,
  url: string,
  context: ToolContext,
  label: string,
): Promise<ToolResult> {
  if (response.large !== undefined) {
    // Not parsed (see MAX_PARSED_JSON_BYTES): the answer as sent, errors (if any) within it.
    const note =
      `${label}: the GraphQL endpoint answered ${mebibytes(response.large)} of JSON, ` +
      `more than the ${mebibytes(MAX_PARSED_JSON_BYTES)} the bridge parses: it follows as sent, not checked for errors ` +
      '(select fewer fields or ask for smaller pages to get it as structured content).';
    return { content: [{ type: 'text', text: note }, ...(await paged(response.text, context, label))] };
  }
  const body = response.body as { data?: unknown; errors?: unknown } | undefined;
  const isGraphql = typeof body === 'object' && body !== null && ('data' in body || 'errors' in body);
  if (!isGraphql) {
    const text = `${label} failed: the GraphQL endpoint ${url} answered HTTP ${response.status} with ${describeNonGraphql(response.text)}`;
    return { content: [{ type: 'text', text }], isError: true };
  }
  const data = body.data ?? null;
  const errors = Array.isArray(body.errors) ? body.errors.map(keepError) : [];
  if (errors.length === 0 && response.status >= 400) {
    const text = `${label} failed: the GraphQL endpoint ${url} answered HTTP ${response.status}`;
    return { content: [{ type: 'text', text }], isError: true };
  }
  if (errors.length > 0) {
    // The list is bounded, in errors and in characters each: an endpoint can send thousands of
    // errors, or one of megabytes, and they would all be in the answer however it is paged.
    const lines = listSome(errors, {
      most: LISTED_ERRORS,
      show: (error) => {
        const at = error.path ? ` (at ${clipText(formatPath(error.path), MESSAGE_CHARS)})` : '';
        return `- ${clipText(error.message, MESSAGE_CHARS)}${at}`;
      },
      more: (count) => `- and ${count} more, in the JSON that follows`,
    });
    const status = response.status >= 400 ? ` (HTTP ${response.status})` : '';
    const partial = data === null ? '' : ' Partial data is included.';
    const summary = `${label}: the GraphQL server reported ${errors.length} error(s)${status}:\n${lines.join('\n')}\n${partial}`;
    const structured = { errors, data };
    const json = await paged(JSON.stringify(structured), context, label);
    const content: ContentBlock[] = [{ type: 'text', text: summary.trimEnd() }, ...json];
    // Paged, it is left out as a successful result's is: it would repeat all that the paging holds back.
    return json.length > 1
      ? { content, isError: true }
      : { content, structuredContent: structured, isError: true };
  }
  const text = JSON.stringify(data);
  const content = await paged(text, context, label);
  // A paged result leaves out structuredContent: repeating the whole payload would defeat the paging.
  if (content.length > 1) return { content };
  return isRecord(data) ? { content, structuredContent: data } : { content };
}

/** `text` as its first page of `PAGE_SIZE` characters and links to the rest, kept for `context`'s caller. */
export async function paged(
  text: string,
  context: ToolContext,
  label: string,
  mimeType = 'application/json',
): Promise<ContentBlock[]> {
  const output = await pageOutput(text, {
    store: context.resources,
    caller: context.caller,
    pageSize: PAGE_SIZE,
    mimeType,
    label: `${label} result`,
  });
  return [{ type: 'text', text: output.firstPage }, ...output.links];
}

function keepError(raw: unknown): KeptError {
  if (typeof raw !== 'object' || raw === null) return { message: String(raw) };
  const error = raw as Record<string, unknown>;
  const kept: KeptError = {
    message: typeof error.message === 'string' ? error.message : JSON.stringify(raw),
  };
  if (error.path !== undefined) kept.path = error.path;
  if (error.locations !== undefined) kept.locations = error.locations;
  if (error.extensions !== undefined) kept.extensions = error.extensions;
  return kept;
}

function formatPath(path: unknown): string {
  return Array.isArray(path) ? path.join('.') : String(path);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
