import {
  type CallToolResult,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { AskCapabilities } from '../ask/ask-params.js';
import { type AskSettings, prepareAsking } from '../ask/call-asking.js';
import { startCall } from '../call-slot.js';
import { callerOf } from '../caller.js';
import { isPlainObject } from '../plain-object.js';
import { quote } from '../quote-input.js';
import type { ReadClientRoots } from '../read-local-roots.js';
import { beforeArgumentsChange } from '../registry.js';
import { type ToolResult, textResult } from '../tool.js';
import { createCallContext } from './call-context.js';
import type { ServerSetup } from './create-server.js';

/** The params of a `tools/call` as the handler reads them. */
export interface ToolsCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/**
 * `params` when they are those of a plain call, of the shapes the SDK's schema checks would let
 * through: a name, arguments that are an object, a `_meta` object (a progress token a string or
 * number), nothing else (no `task`).
 */
export function plainToolsCallParams(params: unknown): ToolsCallParams | undefined {
  if (!isPlainObject(params)) return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== 'string') return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  if (meta !== undefined) {
    if (!isPlainObject(meta)) return undefined;
    const token = meta.progressToken;
    if (token !== undefined && typeof token !== 'string' && !Number.isSafeInteger(token)) return undefined;
  }
  return params as unknown as ToolsCallParams;
}

/**
 * A whole JSON-RPC `tools/call` request with plain params (see `plainToolsCallParams`), of no other
 * members than the SDK's strict request schema allows.
 */
export function plainToolsCall(
  message: unknown,
): { id: string | number; params: ToolsCallParams } | undefined {
  if (!isPlainObject(message) || message.jsonrpc !== '2.0' || message.method !== 'tools/call')
    return undefined;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return undefined;
  const { id } = message;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  const params = plainToolsCallParams(message.params);
  return params ? { id: id as string | number, params } : undefined;
}

/** The members a JSON-RPC request has; a lane leaves a request with any other to the SDK. */
export const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** A `notifications/cancelled` naming a request: what aborts a call a lane took. */
export function isCancellation(
  message: unknown,
): message is { params: { requestId: string | number; reason?: string } } {
  if (!isPlainObject(message) || message.method !== 'notifications/cancelled' || 'id' in message)
    return false;
  const params = message.params;
  return (
    isPlainObject(params) && (typeof params.requestId === 'string' || typeof params.requestId === 'number')
  );
}

/** What differs between the eras and paths that answer a `tools/call`. */
export interface ToolsCallSite {
  modern: boolean;
  /** Initialize era: what the client declared at `initialize`. */
  capabilities?: AskCapabilities;
  /** Initialize era: the connection's roots (2026-07-28: asked through an `input_required` round). */
  roots?: ReadClientRoots;
  /**
   * The request's signal is already aborted at shutdown (the stdio lane aborts its calls itself):
   * it is the call's signal as it is, with no second signal joining it to the server's.
   */
  signalFollowsShutdown?: boolean;
  /** The era codec's projection of a result onto the wire (`structuredContent` wrapping, text fallback). */
  project(result: CallToolResult, outputSchema: Record<string, unknown> | undefined): CallToolResult;
}

/**
 * Answers one ordinary (not task-creating) `tools/call`: the one body behind the SDK's handler and
 * the direct lane (`direct-call.ts`), so the two cannot drift. Throws the era's JSON-RPC errors.
 */
export async function answerToolsCall(
  params: ToolsCallParams,
  ctx: ServerContext,
  setup: ServerSetup,
  askSettings: AskSettings,
  site: ToolsCallSite,
): Promise<CallToolResult | InputRequiredResult> {
  const registry = setup.registry();
  const tool = registry.get(params.name);
  if (!tool) {
    // A tool refused by policy is the model's to hear about, with what it may use instead.
    const reason = registry.explainMissing(params.name);
    if (reason) return textResult(reason, true) as CallToolResult;
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${quote(params.name)}`);
  }
  const args = params.arguments ?? {};
  const asking = prepareAsking(ctx, {
    modern: site.modern,
    capabilities: site.capabilities,
    settings: askSettings,
    caller: callerOf(ctx),
    tool: tool.name,
    args,
  });
  if (asking.ready) await asking.ready;
  // Named one by one rather than spreading `setup`: a copy of every setup field per call.
  const call = createCallContext(ctx, {
    log: setup.log,
    resources: setup.resources,
    shutdown: setup.shutdown,
    signIn: setup.signIn,
    toolName: tool.name,
    roots: asking.roots ?? site.roots,
    ask: asking.ask,
    signalFollowsShutdown: site.signalFollowsShutdown,
    keepAliveMs: setup.progressKeepAliveMs,
  });
  if (asking.snapshot) beforeArgumentsChange(call.context, asking.snapshot);
  // Over HTTP in the 2026-07-28 era the caller's slot is given back once the tool has ended.
  const ended = startCall(ctx.http?.req);
  let result: ToolResult;
  try {
    result = await registry.call(tool, args, call.context);
  } catch (error) {
    const answer = asking.settle({ error });
    if (answer) return answer;
    throw error;
  } finally {
    call.stop();
    ended?.();
  }
  const pending = asking.settle({ result });
  if (pending) return pending;
  await call.settled();
  return site.project(result as CallToolResult, tool.definition.outputSchema);
}
