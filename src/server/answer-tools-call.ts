import {
  type CallToolResult,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { AskCapabilities } from '../ask/ask-params.js';
import { type AskSettings, prepareAsking } from '../ask/call-asking.js';
import { callerOf } from '../caller.js';
import { type ToolResult, textResult } from '../tool.js';
import { createCallContext } from './call-context.js';
import type { ServerSetup } from './create-server.js';

/** What differs between the eras and paths that answer a `tools/call`. */
export interface ToolsCallSite {
  modern: boolean;
  /** Initialize era: what the client declared at `initialize`. */
  capabilities?: AskCapabilities;
  /** Initialize era: the connection's roots (2026-07-28: asked through an `input_required` round). */
  roots?: () => Promise<string[] | undefined>;
  /** The era codec's projection of a result onto the wire (`structuredContent` wrapping, text fallback). */
  project(result: CallToolResult, outputSchema: Record<string, unknown> | undefined): CallToolResult;
}

/**
 * Answers one ordinary (not task-creating) `tools/call`: the one body behind the SDK's handler and
 * the direct lane (`direct-call.ts`), so the two cannot drift. Throws the era's JSON-RPC errors.
 */
export async function answerToolsCall(
  params: { name: string; arguments?: Record<string, unknown> },
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
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: "${params.name}"`);
  }
  const args = params.arguments ?? {};
  const asking = prepareAsking(ctx, {
    modern: site.modern,
    ...(site.capabilities ? { capabilities: site.capabilities } : {}),
    settings: askSettings,
    caller: callerOf(ctx),
    tool: tool.name,
    args,
  });
  const roots = asking.roots ?? site.roots;
  const call = createCallContext(ctx, {
    ...setup,
    toolName: tool.name,
    ...(roots ? { roots } : {}),
    ask: asking.ask,
    ...(setup.progressKeepAliveMs === undefined ? {} : { keepAliveMs: setup.progressKeepAliveMs }),
  });
  let result: ToolResult;
  try {
    result = await registry.call(tool, args, call.context);
  } catch (error) {
    const answer = asking.settle({ error });
    if (answer) return answer;
    throw error;
  } finally {
    call.stop();
  }
  const pending = asking.settle({ result });
  if (pending) return pending;
  await call.settled();
  return site.project(result as CallToolResult, tool.definition.outputSchema);
}
