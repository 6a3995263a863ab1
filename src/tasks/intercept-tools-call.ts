import type { Server, ServerContext } from '@modelcontextprotocol/server';

/** The `tools/call` request as the SDK dispatches it (params not yet validated by the SDK). */
export interface RawToolsCall {
  method: 'tools/call';
  params?: { name?: unknown; arguments?: unknown; task?: unknown; [key: string]: unknown };
}

/**
 * Returns a promise of the `tools/call` response when this call becomes a task, or `undefined` to
 * let the server's ordinary `tools/call` handler answer.
 */
export type ToolsCallInterceptor = (
  request: RawToolsCall,
  ctx: ServerContext,
) => Promise<Record<string, unknown>> | undefined;

type Handler = (request: unknown, ctx: unknown) => unknown;

/**
 * THE ONE PLACE THAT WORKS AROUND THE SDK for task-creating `tools/call` results.
 *
 * `@modelcontextprotocol/server` 2.4.0 wraps every `tools/call` handler (`Server._wrapHandler`) so
 * that its return value is checked against the era's `CallToolResult` schema. That check refuses
 * both task create results: the 2025-11-25 `{ task: {...} }` and the 2026-07-28
 * `{ resultType: "task", taskId, ... }`. The SDK has no task runtime that would produce them itself.
 *
 * So this puts `intercept` in front of the SDK's wrapped handler, in the protocol's handler table
 * (`Protocol._requestHandlers`, a `Map` from method to handler): calls that become tasks are
 * answered here, everything else goes through the SDK's handler and its checks unchanged. The
 * response still goes through the SDK's era codec, which passes both shapes (the 2026-07-28
 * encoder lets `tools/call` carry any `resultType`).
 *
 * The server uses the same seam once more (`create-server.ts`): a plain call is answered by the
 * handler body itself, skipping the wrapper's zod checks of the request and of our own result.
 *
 * Must run after the server's `tools/call` handler is registered. Throws, so that every
 * connection fails loudly, when an SDK upgrade moves the table; `test/tasks/sdk-workaround.test.ts`
 * pins the behaviour end to end.
 */
export function interceptToolsCall(server: Server, intercept: ToolsCallInterceptor): void {
  const table = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  const sdkHandler = table instanceof Map ? (table.get('tools/call') as Handler | undefined) : undefined;
  if (!(table instanceof Map) || typeof sdkHandler !== 'function') {
    throw new Error(
      'Tasks: the MCP SDK no longer keeps request handlers in Server._requestHandlers (or tools/call is not registered yet); ' +
        'task-creating tools/call results cannot be sent. Update src/tasks/intercept-tools-call.ts for this SDK version.',
    );
  }
  const intercepting: Handler = (request, ctx) =>
    intercept(request as RawToolsCall, ctx as ServerContext) ?? sdkHandler(request, ctx);
  table.set('tools/call', intercepting);
}
