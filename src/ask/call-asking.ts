import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ReadClientRoots } from '../read-local-roots.js';
import { textResult } from '../tool.js';
import { type LiveAskOptions, liveAsk } from './ask-live.js';
import type { AskCapabilities } from './ask-params.js';
import { InputRequiredInterrupt, InputRound } from './ask-rounds.js';
import { InvalidAnswerError } from './check-answer.js';
import { AskInterrupt, type ClientAsk, ClientCannotAnswerError, type ClientRoot } from './client-ask.js';
import { InvalidRequestStateError, RequestStateKeeper, type RoundState } from './request-state.js';

/** How the server asks clients: one per server factory. */
export interface AskSettings {
  /** Seals the 2026-07-28 round states. */
  keeper: RequestStateKeeper;
  /** How long an initialize-era question waits for its answer. */
  timeoutMs?: number;
}

/** Asking, wired for one `tools/call` in its era. */
export interface CallAsking {
  /** The tool's `ClientAsk`, cancelled with `signal` (the call's). */
  ask(signal: AbortSignal): ClientAsk;
  /** 2026-07-28 only: the client's roots through an `input_required` round, when it offers roots. */
  roots?: ReadClientRoots;
  /**
   * 2026-07-28, a retry: settles once the shared store recorded its request state as used, and
   * rejects (the era's JSON-RPC error) when another instance used it already. Await it before the
   * call runs anything.
   */
  ready?: Promise<void>;
  /** 2026-07-28: takes what must see the arguments as sent, before the checks correct them. */
  snapshot?: () => void;
  /**
   * What the call answers once the tool returned or threw: `undefined` to send the tool's result
   * (or rethrow its error). Throws the era's JSON-RPC error for a refused question.
   */
  settle(outcome: { error: unknown } | { result: unknown }): CallToolResult | InputRequiredResult | undefined;
}

/**
 * Prepares asking for one call. In the 2026-07-28 era this opens the retry's request state (a bad
 * one is refused here, before anything runs) and collects its `inputResponses`.
 */
export function prepareAsking(
  ctx: ServerContext,
  options: {
    modern: boolean;
    /** Initialize era: what the client declared at `initialize`. */
    capabilities?: AskCapabilities;
    settings: AskSettings;
    caller: string;
    tool: string;
    args: Record<string, unknown>;
    /** Initialize era: `prompts/get` has no `isError` result, so an interrupt becomes a JSON-RPC error. */
    legacyInterrupt?: 'result' | 'error';
  },
): CallAsking {
  if (!options.modern) {
    const live: Omit<LiveAskOptions, 'signal'> = { capabilities: options.capabilities };
    if (options.settings.timeoutMs !== undefined) live.timeoutMs = options.settings.timeoutMs;
    return {
      ask: (signal) => liveAsk(ctx, { ...live, signal }),
      settle: (outcome) =>
        'error' in outcome ? legacyAnswer(outcome.error, options.legacyInterrupt ?? 'result') : undefined,
    };
  }
  const { keeper } = options.settings;
  // The digest of the arguments as the client sent them: the checks correct a model's lossless
  // slips in place ("5" → 5), and a retry repeating what the client sent must match the state
  // sealed in the round before. Taken when a retry's state is opened, before a correction
  // (`snapshot`), or when a round is sealed, whichever comes first: most calls need none (a
  // canonical digest of 4 MiB of arguments costs ~0.8 s of the event loop).
  let bound: string | undefined;
  const bind = () => {
    bound ??= RequestStateKeeper.bind(options.caller, options.tool, options.args);
    return bound;
  };
  const wire = ctx.mcpReq.requestState();
  let prior: RoundState | undefined;
  let ready: Promise<void> | undefined;
  if (wire !== undefined) {
    try {
      prior = keeper.open(String(wire), bind());
    } catch (error) {
      throw modernError(error);
    }
    // Other instances behind the endpoint must not have opened it either (the shared store).
    ready = keeper.claim(prior).catch((error: unknown) => {
      throw modernError(error);
    });
  }
  const round = new InputRound({
    capabilities: (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
      CLIENT_CAPABILITIES_META_KEY
    ] as AskCapabilities | undefined,
    bind,
    ...(prior ? { prior } : {}),
    ...(ctx.mcpReq.inputResponses ? { responses: ctx.mcpReq.inputResponses } : {}),
  });
  return {
    ...(ready ? { ready } : {}),
    snapshot: bind,
    ask: () => round.ask,
    roots: () => clientRootsThrough(round.ask),
    settle(outcome) {
      // A tool that swallowed the interrupt still waits for its answers: its result is not final.
      if (round.waiting) return round.result(keeper);
      if ('error' in outcome) {
        if (outcome.error instanceof InputRequiredInterrupt) return round.result(keeper);
        throw modernError(outcome.error);
      }
      return undefined;
    },
  };
}

// Initialize era: the model hears why its call could not go on.
function legacyAnswer(error: unknown, as: 'result' | 'error'): CallToolResult {
  if (!(error instanceof AskInterrupt)) throw error;
  if (as === 'error') throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
  return textResult(error.message, true) as CallToolResult;
}

function modernError(error: unknown): unknown {
  if (error instanceof ClientCannotAnswerError) {
    return new MissingRequiredClientCapabilityError(
      { requiredCapabilities: error.requiredCapabilities },
      error.message,
    );
  }
  if (error instanceof InvalidAnswerError || error instanceof InvalidRequestStateError) {
    return new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
  }
  return error;
}

/**
 * The client's roots as it lists them, asked through `ask` (a 2026-07-28 round or a task's
 * questions), or `undefined` when the client offers no roots.
 */
export async function clientRootsThrough(ask: ClientAsk): Promise<ClientRoot[] | undefined> {
  return ask.can('roots') ? ask.roots() : undefined;
}
