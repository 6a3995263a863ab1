import {
  type AuthInfo,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { AskSettings } from '../ask/call-asking.js';
import { isPlainObject } from '../plain-object.js';
import { answerToolsCall, plainToolsCall } from './answer-tools-call.js';
import type { ServerSetup } from './create-server.js';
import { LIST_CACHE_HINT, plainListRequest, toolsListAnswer } from './list-json.js';
import { isPlainEnvelope, REVISION } from './plain-envelope.js';

const NEWLINE = Buffer.from('\n');
const ENVELOPE_KEYS = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
]);
// Distinct envelopes remembered as accepted; a client sends the same one on every request.
const MAX_ENVELOPES = 1_024;
// A larger envelope is not remembered (its calls take the SDK's path), so that what is remembered
// stays small: clients' capabilities and info are far below this, but a body may be 4 MiB.
const MAX_ENVELOPE_CHARS = 4_096;

/**
 * A JSON answer the HTTP server writes as it is, without a web `Response` around it: what the
 * direct lane answers, where a `Response` and its body stream would cost a good part of the call.
 */
export type JsonAnswer =
  | MessageAnswer
  /** The message already serialized (a `tools/list` page joined from its entries' JSON). */
  | { status: number; body: Uint8Array };

/** A JSON answer as a message, serialized when written. */
export interface MessageAnswer {
  status: number;
  message: Record<string, unknown>;
}

/** A 2026-07-28 HTTP request as the direct lane sees it: its parsed body and its headers. */
export interface DirectCallRequest {
  body: unknown;
  request: Request;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  authInfo?: AuthInfo;
}

/**
 * The direct lane for 2026-07-28 `tools/call` over HTTP. The SDK's per-request path builds a
 * server, a transport and a context per request and checks our own results with zod; profiles put
 * the bridge's code under a tenth of a call's CPU on that path. The lane answers the plain call —
 * one request, a known tool that never runs as a task, no progress token, no log level, no retry
 * state, standard headers that match the body, and an envelope the SDK has already accepted once
 * (the SDK's handler reports each envelope it served: `accepted`) — with the same handler body
 * (`answerToolsCall`) and the SDK's 2026-07-28 result encoding. Everything else, including every
 * error the SDK would answer before the handler, returns `undefined` and goes through the SDK.
 * `test/core/direct-call.test.ts` compares the two paths response by response. A plain `tools/list`
 * of a registry with kept JSON is answered too (`test/core/direct-list.test.ts`).
 */
export function createDirectCall(setup: ServerSetup, askSettings: AskSettings) {
  const envelopes = new Set<string>();

  const answer = (call: DirectCallRequest): Promise<JsonAnswer> | undefined => {
    if (isPlainObject(call.body) && call.body.method === 'tools/list') return list(call);
    const message = plainToolsCall(call.body);
    if (!message) return undefined;
    const { params } = message;
    const headers = call.request.headers;
    if (
      headers.get('mcp-protocol-version') !== REVISION ||
      headers.get('mcp-method') !== 'tools/call' ||
      headers.get('mcp-name') !== params.name
    ) {
      return undefined;
    }
    const envelope = params._meta;
    const key = envelopeKey(envelope);
    if (!envelope || key === undefined || !envelopes.has(key)) return undefined;
    const tool = setup.registry().get(params.name);
    if (!tool || (tool.definition.taskSupport ?? 'forbidden') !== 'forbidden') return undefined;

    const ctx = directContext(message.id, envelope, call);
    return answerToolsCall(params, ctx, setup, askSettings, { modern: true, project: projectModern }).then(
      (result) => ({
        status: 200,
        message: {
          result: encodeModern(result as Record<string, unknown>, setup.info),
          jsonrpc: '2.0',
          id: message.id,
        },
      }),
      (error) => errorAnswer(message.id, error),
    );
  };

  // A plain `tools/list` (an envelope the SDK accepted, at most a cursor beside it, standard
  // headers): the page joined from the entries' JSON (see list-json.ts), encoded as the SDK's codec
  // does. Unreadable cursors and registries the SDK lists go to the SDK.
  const list = (call: DirectCallRequest): Promise<JsonAnswer> | undefined => {
    const request = plainListRequest(call.body, true);
    if (!request) return undefined;
    const headers = call.request.headers;
    if (
      headers.get('mcp-protocol-version') !== REVISION ||
      headers.get('mcp-method') !== 'tools/list' ||
      headers.has('mcp-name')
    ) {
      return undefined;
    }
    const answer = knownListAnswer(request);
    return answer ? Promise.resolve({ status: 200, body: answer }) : undefined;
  };

  // The encoded answer to a plain list whose envelope the SDK accepted; undefined otherwise.
  const knownListAnswer = (request: ListRequest) => {
    const key = isPlainObject(request.meta) ? envelopeKey(request.meta) : undefined;
    if (key === undefined || !envelopes.has(key)) return undefined;
    return listAnswer(request);
  };
  const listAnswer = (request: ListRequest) =>
    toolsListAnswer(setup.registry(), request.id, request.cursor, {
      serverInfo: setup.info,
      ...LIST_CACHE_HINT,
    });

  /** Called by the SDK's `tools/call` and `tools/list` handlers with each 2026-07-28 envelope they let through. */
  const accepted = (envelope: Record<string, unknown> | undefined): void => {
    const key = envelopeKey(envelope);
    if (key === undefined || key.length > MAX_ENVELOPE_CHARS || envelopes.has(key)) return;
    if (envelopes.size >= MAX_ENVELOPES) envelopes.clear();
    envelopes.add(key);
  };

  return {
    answer,
    /**
     * A 2026-07-28 `tools/list` over stdio (the connection pinned to that era): the same answer as
     * over HTTP, as one line, for a plain request whose envelope the SDK accepted; undefined else.
     */
    stdioList(message: unknown): Buffer | undefined {
      const request = plainListRequest(message, true);
      const answer = request && knownListAnswer(request);
      return answer && Buffer.concat([answer, NEWLINE]);
    },
    /**
     * A 2026-07-28 `tools/list` that opens a stdio connection, before the SDK has seen any message:
     * answered as `stdioList` answers later ones when its envelope is plain (see plain-envelope.ts),
     * which the SDK's schema accepts as it is, so it is remembered as accepted. The answer, and the
     * envelope for the SDK to pin the connection with; undefined when the SDK answers instead.
     */
    stdioOpeningList(message: unknown): { answer: Buffer; envelope: Record<string, unknown> } | undefined {
      const request = plainListRequest(message, true);
      if (!request || !isPlainEnvelope(request.meta)) return undefined;
      const answer = listAnswer(request);
      if (!answer) return undefined;
      accepted(request.meta);
      return { answer: Buffer.concat([answer, NEWLINE]), envelope: request.meta };
    },
    accepted,
  };
}

type ListRequest = NonNullable<ReturnType<typeof plainListRequest>>;

export type DirectCall = ReturnType<typeof createDirectCall>;

// The envelope's identity when `_meta` holds nothing but a 2026-07-28 envelope (no progress token,
// log level or trace context: those need the SDK's streaming and checks).
function envelopeKey(meta: Record<string, unknown> | undefined): string | undefined {
  if (!meta || meta[PROTOCOL_VERSION_META_KEY] !== REVISION) return undefined;
  for (const key in meta) if (!ENVELOPE_KEYS.has(key)) return undefined;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  const clientInfo = meta[CLIENT_INFO_META_KEY];
  // Objects only: the key writes a missing clientInfo and a null one alike, and the SDK accepts
  // the one and refuses the other.
  if (!isPlainObject(capabilities) || (clientInfo !== undefined && !isPlainObject(clientInfo))) {
    return undefined;
  }
  return JSON.stringify([capabilities, clientInfo]);
}

/**
 * The request context the call path reads (see `answerToolsCall`), as the SDK builds it for a
 * 2026-07-28 request whose `_meta` is only the envelope: no session, the request's own signal, and
 * nothing to notify (no progress token; no log level, so the SDK forwards no log either).
 */
function directContext(
  id: string | number,
  envelope: Record<string, unknown>,
  call: DirectCallRequest,
): ServerContext {
  const nothing = () => Promise.resolve();
  const context = {
    sessionId: undefined,
    mcpReq: {
      id,
      method: 'tools/call',
      _meta: undefined,
      envelope,
      requestState: () => undefined,
      signal: call.signal,
      notify: nothing,
      log: nothing,
      send: () => Promise.reject(new Error('2026-07-28 requests cannot send requests to the client')),
    },
    http: { ...(call.authInfo ? { authInfo: call.authInfo } : {}), req: call.request },
  };
  return context as unknown as ServerContext;
}

// The 2026-07-28 codec's projection: a non-object `structuredContent` also goes out as text.
function projectModern(result: CallToolResult): CallToolResult {
  const structured = result.structuredContent as unknown;
  if (structured === undefined || isPlainObject(structured)) return result;
  if (result.content?.some((block) => block.type === 'text')) return result;
  return {
    ...result,
    content: [...(result.content ?? []), { type: 'text', text: JSON.stringify(structured) }],
  };
}

// The SDK's 2026-07-28 result encoding for `tools/call`: a result type, and the server's identity
// in `_meta` unless the result names one.
function encodeModern(result: Record<string, unknown>, info: { name: string; version: string }) {
  const typed = result.resultType === undefined ? { ...result, resultType: 'complete' } : result;
  const meta = typed._meta;
  if (meta === undefined) return { ...typed, _meta: { [SERVER_INFO_META_KEY]: info } };
  if (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return typed;
  return { ...typed, _meta: { ...meta, [SERVER_INFO_META_KEY]: info } };
}

/**
 * A thrown error as the SDK answers it: its JSON-RPC code (-32603 when it has none; -32002, which
 * no era sends, as -32602), message and data. In-band errors are HTTP 200, except -32021, to which
 * the spec gives its own 400.
 */
export function errorAnswer(id: string | number, thrown: unknown): MessageAnswer {
  // Anything may be thrown: `null` and `undefined` too, answered as an internal error.
  const error = (thrown ?? {}) as { code?: unknown; message?: string; data?: unknown };
  const raw = Number.isSafeInteger(error.code) ? (error.code as number) : -32603;
  const code = raw === -32002 ? -32602 : raw;
  return {
    status: code === ProtocolErrorCode.MissingRequiredClientCapability ? 400 : 200,
    message: {
      jsonrpc: '2.0',
      id,
      error: {
        code,
        message: error.message ?? 'Internal error',
        ...(error.data === undefined ? {} : { data: error.data }),
      },
    },
  };
}
