import type { LoggingLevel, ServerContext } from '@modelcontextprotocol/server';
import type { ClientAsk } from '../ask/client-ask.js';
import type { Logger } from '../logger.js';
import type { ReadClientRoots } from '../read-local-roots.js';
import type { ResourceStore } from '../resource-store.js';
import type { SignInCallbacks } from '../sign-in/sign-in-callbacks.js';
import type { Progress, ToolContext } from '../tool.js';
import { buildToolContext, callOrigin } from '../tool-context.js';

/**
 * Builds the `ToolContext` of one `tools/call`: the request's abort signal joined with the
 * server's shutdown signal, progress notifications when the client sent a progress token, and a
 * logger that writes to stderr and forwards to the client's MCP log.
 */
export function createCallContext(
  ctx: ServerContext,
  options: {
    log: Logger;
    resources: ResourceStore;
    shutdown: AbortSignal;
    toolName: string;
    roots?: ReadClientRoots;
    /** `ctx`'s signal is already aborted at shutdown: no joined signal is made (see `ToolsCallSite`). */
    signalFollowsShutdown?: boolean;
    /** Builds the call's `ClientAsk` from its signal (see `prepareAsking`). */
    ask?: (signal: AbortSignal) => ClientAsk;
    /** Longest silence before a keep-alive progress notification (with a progress token). Default 10 s. */
    keepAliveMs?: number;
    /** Where upstream sign-in redirects arrive. */
    signIn?: SignInCallbacks;
  },
): { context: ToolContext; settled: () => Promise<void>; stop: () => void } {
  // Notifications are sent in order and awaited before the result, so none arrives after it.
  let pending: Promise<void> = Promise.resolve();
  const progressToken = ctx.mcpReq._meta?.progressToken;
  let lastProgress = Number.NEGATIVE_INFINITY;
  let lastSentAt = Date.now();
  let lastMessage: string | undefined;
  const send = (params: Record<string, unknown>) => {
    lastSentAt = Date.now();
    pending = pending.then(() =>
      ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => {}),
    );
  };
  const progress = (update: Progress) => {
    if (progressToken === undefined) return;
    if (update.message !== undefined) lastMessage = update.message;
    if (!(update.progress > lastProgress)) return;
    lastProgress = update.progress;
    const params: Record<string, unknown> = { progressToken, progress: update.progress };
    if (update.total !== undefined) params.total = update.total;
    if (update.message !== undefined) params.message = update.message;
    send(params);
  };
  // Clients reset their call timeout on progress: a silent long call still says it is alive.
  const startedAt = Date.now();
  const keepAliveMs = options.keepAliveMs ?? 10_000;
  const keepAlive =
    progressToken === undefined
      ? undefined
      : setInterval(
          () => {
            if (Date.now() - lastSentAt < keepAliveMs) return;
            const base = lastProgress === Number.NEGATIVE_INFINITY ? 0 : lastProgress;
            lastProgress = base + 1;
            const elapsed = `Still running after ${Math.round((Date.now() - startedAt) / 1000)} s`;
            const message = lastMessage === undefined ? elapsed : `${elapsed}; ${lastMessage}`;
            send({ progressToken, progress: lastProgress, message });
          },
          Math.max(10, Math.floor(keepAliveMs / 4)),
        );
  keepAlive?.unref();
  const stop = () => clearInterval(keepAlive);
  // Joining costs a signal and two listeners per call (~10 µs on Node 20): only when needed.
  const signal = options.signalFollowsShutdown
    ? ctx.mcpReq.signal
    : AbortSignal.any([ctx.mcpReq.signal, options.shutdown]);
  const context = buildToolContext(callOrigin(ctx), {
    signal,
    progress,
    log: forwardingLogger(ctx, options.log, options.toolName),
    resources: options.resources,
    ...(options.roots ? { roots: options.roots } : {}),
    ...(options.ask ? { ask: options.ask(signal) } : {}),
    ...(options.signIn ? { signIn: options.signIn } : {}),
  });
  // The v2 SDK client dispatches notifications a tick later than responses: when the last
  // progress and the result share one read, it drops the progress. One macrotask apart, they don't.
  const settled = async () => {
    stop();
    if (lastProgress === Number.NEGATIVE_INFINITY) return;
    await pending;
    await new Promise((resolve) => setTimeout(resolve, 1));
  };
  return { context, settled, stop };
}

function forwardingLogger(ctx: ServerContext, log: Logger, toolName: string): Logger {
  const forward = (level: LoggingLevel, message: string, data?: unknown) => {
    const payload = data === undefined ? message : { message, data };
    // Forwarding is best effort: the 2026-07-28 era and clients without logging drop it.
    ctx.mcpReq.log(level, payload, toolName).catch(() => {});
  };
  return {
    debug(message, data) {
      log.debug(message, data);
      forward('debug', message, data);
    },
    info(message, data) {
      log.info(message, data);
      forward('info', message, data);
    },
    warn(message, data) {
      log.warn(message, data);
      forward('warning', message, data);
    },
    error(message, data) {
      log.error(message, data);
      forward('error', message, data);
    },
  };
}
