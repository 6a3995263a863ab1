import {
  type ContentBlock,
  clip,
  clipText,
  excessiveDepth,
  listSome,
  MAX_JSON_DEPTH,
  MAX_PARSED_JSON_BYTES,
  mebibytes,
  pageOutput,
  type ToolContext,
  type ToolResult,
} from '../../src/index.js';
import type { HttpRequest } from './build-request.js';
import type { HttpResponse } from './send-request.js';

/** Characters of a text body returned inline before the rest is paged (about 20,000 tokens). */
const PAGE_CHARS = 80_000;
/** Characters of an error body kept in the error text. */
const ERROR_BODY_CHARS = 4_000;
/** Binary bodies above this size are linked, not embedded. */
const EMBED_BYTES = 1024 * 1024;

export interface ResultOptions {
  toolName: string;
  /**
   * Checks a JSON body against the declared output schema: violations, or `[]`. Absent when no
   * schema is declared (a non-object response, or `--relax-output`); JSON objects still come back
   * as `structuredContent`.
   */
  checkOutput?: (value: unknown) => string[];
  /** Credential variables that were not set, for a 401/403 hint. */
  missingCredentials: string[];
  /** Security schemes the user did not name (`--auth-scheme`), so given no credentials. */
  ungrantedSchemes?: string[];
  /** Why the user's credentials were not sent at all (another origin), for a 401/403 hint. */
  withheld?: string;
}

/**
 * Turns an upstream answer into a tool result: JSON as compact text plus `structuredContent`,
 * text as text, images and audio as such, other bytes as an embedded (or linked) blob, never
 * UTF-8-decoded; long text paged into the resource store; non-2xx as `isError` with the status,
 * reason, the start of the body and whether retrying makes sense.
 */
export async function responseToResult(
  request: HttpRequest,
  response: HttpResponse,
  options: ResultOptions,
  context: ToolContext,
): Promise<ToolResult> {
  const mediaType = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (response.status < 200 || response.status >= 300)
    return errorResult(request, response, mediaType, options);
  if (response.body.length === 0) {
    return { content: [{ type: 'text', text: `HTTP ${response.status} ${response.reason}`.trim() }] };
  }
  const media = mediaType.startsWith('audio/')
    ? 'audio'
    : mediaType.startsWith('image/') && mediaType !== 'image/svg+xml'
      ? 'image'
      : undefined;
  // Embedded up to EMBED_BYTES like other bytes: a larger image is linked, not held in the result.
  if (media && response.body.length <= EMBED_BYTES) {
    return { content: [{ type: media, data: response.body.toString('base64'), mimeType: mediaType }] };
  }
  // A larger image or audio body is bytes like any other (`textOf` reads none of them as text).
  const text = textOf(response.body, mediaType);
  if (text === undefined)
    return binaryResult(response.body, mediaType || 'application/octet-stream', options, context);

  if (isJsonType(mediaType) || (mediaType === '' && /^\s*[[{]/.test(text))) {
    // Not parsed at all past the bound (see MAX_PARSED_JSON_BYTES).
    if (response.body.length > MAX_PARSED_JSON_BYTES) {
      const result = await pagedText(text, mediaType || 'application/json', options, context);
      if (!options.checkOutput) return result;
      // A declared outputSchema wants structuredContent, which this cannot be (see the deep case below).
      const note =
        `The response of ${options.toolName} is ${mebibytes(response.body.length)} of JSON, ` +
        `more than the ${mebibytes(MAX_PARSED_JSON_BYTES)} the bridge parses into structured content. The body follows.`;
      return { content: [{ type: 'text', text: note }, ...result.content], isError: true };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (options.checkOutput) {
        const problem = `is not valid JSON although its Content-Type is ${mediaType || 'absent'} (${(error as Error).message})`;
        return notJsonResult(text, options, problem);
      }
      return pagedText(text, mediaType || 'text/plain', options, context);
    }
    // JSON.parse does not recurse, but what follows does (serializing it, checking it against the
    // output schema, a client's parser: Python's stops at ~1,000 levels): deeper JSON is passed on
    // as the text it came as, never as structuredContent. Only what would be structuredContent is
    // scanned for its depth (in its compact form): a long body without an output schema goes out
    // as text alone, where depth does not matter, and is not read a second time.
    const isObjectValue = value !== null && typeof value === 'object' && !Array.isArray(value);
    let compact: string | undefined;
    try {
      compact = JSON.stringify(value);
    } catch {
      // Nested beyond what serializing recurses through.
    }
    const structured =
      options.checkOutput !== undefined || (isObjectValue && (compact?.length ?? 0) <= PAGE_CHARS);
    if (compact === undefined || (structured && excessiveDepth(compact) !== undefined)) {
      const result = await pagedText(text, mediaType || 'application/json', options, context);
      if (!options.checkOutput) return result;
      // A declared outputSchema wants structuredContent, which this cannot be: an error, with the
      // whole body as for one that does not match its schema (it is the API's data, not its error page).
      const note =
        `The response of ${options.toolName} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels, ` +
        'more than the bridge passes on as structured content. The body follows.';
      return { content: [{ type: 'text', text: note }, ...result.content], isError: true };
    }
    const result = await pagedText(compact, 'application/json', options, context);
    // A paged result leaves out structuredContent, which would repeat the whole body; a declared
    // outputSchema still needs it, since clients reject a result without it.
    const paged = compact.length > PAGE_CHARS;
    if (options.checkOutput) {
      const violations = options.checkOutput(value);
      if (violations.length > 0) {
        const note =
          `The response of ${options.toolName} does not match the schema its API declares ` +
          `(${violations.slice(0, 5).join('; ')}). The body follows. ` +
          'Start the bridge with --relax-output to accept responses that drift from the spec.';
        return { content: [{ type: 'text', text: note }, ...result.content], isError: true };
      }
      result.structuredContent = value as Record<string, unknown>;
    } else if (isObjectValue && !paged) {
      result.structuredContent = value as Record<string, unknown>;
    }
    return result;
  }
  if (options.checkOutput) {
    return notJsonResult(
      text,
      options,
      `is ${mediaType || 'of no declared type'}, not the JSON its schema declares`,
    );
  }
  return pagedText(text, mediaType || 'text/plain', options, context);
}

// A tool with an outputSchema must return structuredContent, or clients reject the result: a body
// that is not JSON is the upstream's error, said as such with the start of what it sent.
function notJsonResult(text: string, options: ResultOptions, problem: string): ToolResult {
  const start = clipText(text, 500);
  return {
    content: [
      {
        type: 'text',
        text: `The response of ${options.toolName} ${problem}. It starts:\n${start}`,
      },
    ],
    isError: true,
  };
}

async function pagedText(
  text: string,
  mimeType: string,
  options: ResultOptions,
  context: ToolContext,
): Promise<ToolResult> {
  // What fits one page is the whole answer, as `pageOutput` would return it, without its awaits.
  if (text.length <= PAGE_CHARS) return { content: [{ type: 'text', text }] };
  const paged = await pageOutput(text, {
    store: context.resources,
    caller: context.caller,
    pageSize: PAGE_CHARS,
    mimeType,
    label: `${options.toolName} response`,
  });
  return { content: [{ type: 'text', text: paged.firstPage }, ...paged.links] };
}

async function binaryResult(
  bytes: Buffer,
  mimeType: string,
  options: ResultOptions,
  context: ToolContext,
): Promise<ToolResult> {
  const stored = await context.resources.put(
    { name: `${options.toolName} response`, mimeType, bytes: new Uint8Array(bytes) },
    context.caller,
  );
  const content: ContentBlock[] =
    bytes.length <= EMBED_BYTES
      ? [{ type: 'resource', resource: { uri: stored.uri, mimeType, blob: bytes.toString('base64') } }]
      : [
          {
            type: 'text',
            text: `The response is ${bytes.length} bytes of ${mimeType}; read it from the linked resource.`,
          },
          { type: 'resource_link', uri: stored.uri, name: stored.name, mimeType, size: stored.size },
        ];
  return { content };
}

function errorResult(
  request: HttpRequest,
  response: HttpResponse,
  mediaType: string,
  options: ResultOptions,
): ToolResult {
  const lines = [
    `HTTP ${response.status} ${response.reason} from ${request.method} ${request.path.split('?')[0]}.`.replace(
      '  ',
      ' ',
    ),
  ];
  const limited = rateLimitUntil(response.headers);
  if (limited) {
    // GitHub answers a used-up rate limit with 403 (or 429) and says until when in its headers.
    lines.push(`The API's rate limit is used up until ${limited}; calls before then fail the same way.`);
  } else if (response.status === 429 || response.status === 503 || response.headers['retry-after']) {
    const after = response.headers['retry-after'];
    lines.push(
      `The upstream asks to retry later${after ? ` (Retry-After: ${after})` : ''}` +
        `${response.attempts > 1 ? `; the bridge already tried ${response.attempts} times` : ''}.`,
    );
  } else if (response.status === 502 || response.status === 504) {
    lines.push('A gateway failed; retrying may help.');
  } else if (
    response.status >= 400 &&
    response.status < 500 &&
    response.status !== 401 &&
    response.status !== 403
  ) {
    lines.push('Retrying with the same arguments will fail the same way; fix the request.');
  }
  // Also beside a used-up rate limit: an unauthenticated caller's limit is the lower one.
  if ((response.status === 401 || response.status === 403) && options.withheld) {
    lines.push(
      `No credentials were sent: ${options.withheld}, and the bridge sends your headers and credentials to that origin only (or to --base-url).`,
    );
  } else if ((response.status === 401 || response.status === 403) && options.ungrantedSchemes?.length) {
    const schemes = options.ungrantedSchemes;
    const set =
      options.missingCredentials.length > 0
        ? `; unset: ${few(options.missingCredentials, (v) => v, ', ')}`
        : '';
    lines.push(
      `No credentials were sent: the bridge gives security ${schemes.length === 1 ? 'scheme' : 'schemes'} ${few(schemes, (name) => `"${name}"`, ', ')} ${schemes.length === 1 ? 'its' : 'their'} variables only when you name ${schemes.length === 1 ? 'it' : 'them'} with ${few(schemes, (name) => `--auth-scheme ${name}`, ' ')} (authSchemes in a config file)${set}.`,
    );
  } else if ((response.status === 401 || response.status === 403) && options.missingCredentials.length > 0) {
    lines.push(
      `No credentials were sent: set ${few(options.missingCredentials, (v) => v, ' or ')} in the bridge's environment.`,
    );
  }
  const text = textOf(response.body, mediaType);
  if (text === undefined) lines.push(`(${response.body.length} bytes of ${mediaType || 'binary data'})`);
  else if (text.length > 0) {
    lines.push(clipText(text, ERROR_BODY_CHARS));
  }
  return { content: [{ type: 'text', text: lines.join('\n') }], isError: true };
}

// A few of the names a spec chose (its schemes, the variables named after them), each clipped: as
// many and as long as its author liked, in a result the model reads.
function few(items: readonly string[], show: (item: string) => string, joint: string): string {
  return listSome(items, { most: 5, show: (item) => show(clip(item, 100)), more: (n) => `${n} more` }).join(
    joint,
  );
}

/**
 * When a used-up rate limit resets, as an ISO time with the header that said so: `x-ratelimit-*`
 * (GitHub and others: the reset as epoch seconds) or the IETF draft's `ratelimit-*` (seconds from
 * now). Undefined unless the answer says no requests remain.
 */
function rateLimitUntil(headers: Record<string, string>): string | undefined {
  const at = (epochMs: number, header: string) => {
    // The upstream's number: past what a Date holds (±8.64e15 ms), toISOString would throw.
    const time = new Date(epochMs);
    return epochMs > 0 && !Number.isNaN(time.getTime()) ? `${time.toISOString()} (${header})` : undefined;
  };
  if (headers['x-ratelimit-remaining']?.trim() === '0' && headers['x-ratelimit-reset'] !== undefined)
    return at(
      Number(headers['x-ratelimit-reset']) * 1000,
      `x-ratelimit-reset: ${headers['x-ratelimit-reset']}`,
    );
  if (headers['ratelimit-remaining']?.trim() === '0' && headers['ratelimit-reset'] !== undefined)
    return at(
      Date.now() + Number(headers['ratelimit-reset']) * 1000,
      `ratelimit-reset: ${headers['ratelimit-reset']}`,
    );
  return undefined;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The body as text when it is text: by media type, else when it decodes as UTF-8. */
function textOf(body: Buffer, mediaType: string): string | undefined {
  const declaredText =
    mediaType.startsWith('text/') ||
    isJsonType(mediaType) ||
    mediaType.endsWith('+xml') ||
    mediaType === 'application/xml' ||
    mediaType === 'image/svg+xml' ||
    mediaType === 'application/x-www-form-urlencoded' ||
    mediaType === 'application/javascript' ||
    mediaType === 'application/yaml';
  if (declaredText) return body.toString('utf8');
  // A declared non-text type is bytes; only an undeclared body is sniffed.
  if (mediaType !== '') return undefined;
  try {
    const text = decoder.decode(body);
    // Control characters other than whitespace mean bytes, even when they happen to be valid UTF-8.
    return hasControlCharacters(text) ? undefined : text;
  } catch {
    return undefined;
  }
}

function isJsonType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d && code !== 0x0c) return true;
  }
  return false;
}
