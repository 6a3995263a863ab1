import { ProtocolError } from '@modelcontextprotocol/server';
import type { AskCapabilities } from '../ask/ask-params.js';
import type { ClientRoot } from '../ask/client-ask.js';
import { BridgeError, JSON_RPC_ERROR_CODES } from '../errors.js';
import type { RegisteredTool, ToolRegistry } from '../registry.js';
import type { ToolResult } from '../tool.js';
import type { CallOrigin } from '../tool-context.js';
import type { RawToolsCall } from './intercept-tools-call.js';
import type { TaskCall, TaskRunner } from './task-runner.js';
import type { TaskRecord } from './task-store.js';

/** The tool and arguments of a `tools/call`. */
export interface ToolCallTarget {
  registry: ToolRegistry;
  tool: RegisteredTool;
  args: Record<string, unknown>;
}

/**
 * The tool a `tools/call` names, or `undefined` when the ordinary handler should answer (an unknown
 * tool or malformed params get its usual errors).
 */
export function toolCallTarget(request: RawToolsCall, registry: ToolRegistry): ToolCallTarget | undefined {
  const params = request.params;
  if (typeof params?.name !== 'string') return undefined;
  const tool = registry.get(params.name);
  const args = params.arguments ?? {};
  if (!tool || typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  return { registry, tool, args: args as Record<string, unknown> };
}

interface TaskCallOptions {
  origin: CallOrigin;
  requestedTtl?: unknown;
  notify?: (task: Readonly<TaskRecord>) => void;
  roots?: Promise<readonly ClientRoot[] | undefined>;
  askCapabilities?: AskCapabilities;
}

/** Starts `target` as a task of `caller`; store and TTL refusals become JSON-RPC errors. */
export function startTaskCall(
  runner: TaskRunner,
  target: ToolCallTarget,
  options: TaskCallOptions,
): Promise<Readonly<TaskRecord>> {
  return refusalsAsErrors(() => runner.start(taskCall(runner, target, options)));
}

/** Like `startTaskCall`, but a call done within `withinMs` is answered with its result instead. */
export function startOrAnswerCall(
  runner: TaskRunner,
  target: ToolCallTarget,
  options: TaskCallOptions,
  withinMs: number,
): Promise<{ task: Readonly<TaskRecord> } | { result: ToolResult }> {
  return refusalsAsErrors(() => runner.startOrAnswer(taskCall(runner, target, options), withinMs));
}

function taskCall(runner: TaskRunner, target: ToolCallTarget, options: TaskCallOptions): TaskCall {
  return {
    ...target,
    origin: options.origin,
    ttlMs: runner.resolveTtl(options.requestedTtl),
    ...(options.notify ? { notify: options.notify } : {}),
    ...(options.roots ? { roots: options.roots } : {}),
    ...(options.askCapabilities ? { askCapabilities: options.askCapabilities } : {}),
  };
}

async function refusalsAsErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw wireError(error);
  }
}

/**
 * The JSON-RPC error for a refusal of the task layer (a `BridgeError`, coded by
 * `JSON_RPC_ERROR_CODES`); anything else is rethrown as is.
 */
export function wireError(error: unknown): unknown {
  if (error instanceof BridgeError) return new ProtocolError(JSON_RPC_ERROR_CODES[error.code], error.message);
  return error;
}
