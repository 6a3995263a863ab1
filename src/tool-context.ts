import type { ServerContext } from '@modelcontextprotocol/server';
import type { ClientAsk } from './ask/client-ask.js';
import { callerOf, quotaKeyOf } from './caller.js';
import type { Logger } from './logger.js';
import { once } from './once.js';
import { type ReadClientRoots, readLocalRoots } from './read-local-roots.js';
import { chargedTo, type ResourceStore } from './resource-store.js';
import type { SignInCallbacks } from './sign-in/sign-in-callbacks.js';
import type { ToolContext } from './tool.js';

/**
 * What a tool call takes from the request that carried it: who is calling and the credentials it
 * came with. Read once, when the request arrives — a task captures it at creation, because by the
 * time its tool runs the request is answered and gone.
 */
export interface CallOrigin {
  /** Who owns what the call creates (see `callerOf`). */
  caller: string;
  /** Whose quotas it counts against (see `quotaKeyOf`): a task's place, its pages' bytes. */
  quotaKey: string;
  /** The request's `Authorization` header (HTTP only); kept in this process, never in a store. */
  authorization?: string;
}

/** The origin of the request behind `ctx`. */
export function callOrigin(ctx: ServerContext): CallOrigin {
  const origin: CallOrigin = { caller: callerOf(ctx), quotaKey: quotaKeyOf(ctx) };
  const authorization = ctx.http?.req?.headers.get('authorization');
  if (authorization) origin.authorization = authorization;
  return origin;
}

/** How the call runs: what differs between a direct `tools/call` and a task. */
export interface CallRuntime {
  signal: AbortSignal;
  progress: ToolContext['progress'];
  log: Logger;
  resources: ResourceStore;
  /** The client's roots as it lists them, in the call's era (see `readLocalRoots`). */
  roots?: ReadClientRoots;
  ask?: ClientAsk;
  signIn?: SignInCallbacks;
}

/**
 * THE one place a `ToolContext` is assembled, for direct calls and tasks alike: everything taken
 * from the request comes through `origin`, so a field added there reaches both paths.
 */
export function buildToolContext(origin: CallOrigin, runtime: CallRuntime): ToolContext {
  const context: ToolContext = {
    signal: runtime.signal,
    progress: runtime.progress,
    log: runtime.log,
    // Bound to the call's quota key, so that no tool can forget to count its pages against it.
    resources:
      origin.quotaKey === origin.caller ? runtime.resources : chargedTo(runtime.resources, origin.quotaKey),
    caller: origin.caller,
  };
  if (origin.quotaKey !== origin.caller) context.quotaKey = origin.quotaKey;
  if (origin.authorization !== undefined) context.authorization = origin.authorization;
  // Read at most once a call: a confirmation's preview and the run that follows must see the same
  // roots, whatever the client says meanwhile (a list_changed, another answer in a later round).
  const read = runtime.roots;
  if (read) context.roots = once(() => readLocalRoots(read, { log: context.log, signal: context.signal }));
  if (runtime.ask) context.ask = runtime.ask;
  if (runtime.signIn) context.signIn = runtime.signIn;
  return context;
}
