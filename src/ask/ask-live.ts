import type { ServerContext } from '@modelcontextprotocol/server';
import { BridgeError } from '../errors.js';
import { type AskCapabilities, clientCan, formParams, samplingParams, urlParams } from './ask-params.js';
import { checkFormAnswer, checkRootsAnswer, checkSamplingAnswer, checkUrlAnswer } from './check-answer.js';
import { type AskKind, type ClientAsk, ClientCannotAnswerError } from './client-ask.js';

/** How long a question waits for the client by default: a person may be answering it. */
export const DEFAULT_ASK_TIMEOUT_MS = 5 * 60_000;

export interface LiveAskOptions {
  /** What the client declared at `initialize`. */
  capabilities: AskCapabilities | undefined;
  /** The call's signal: cancelling the call cancels the question (the client hears `notifications/cancelled`). */
  signal: AbortSignal;
  /** How long one question may wait for its answer. */
  timeoutMs?: number;
}

/**
 * `ClientAsk` for the initialize era: each question is a real server→client request related to the
 * running call, so over Streamable HTTP it rides the call's own SSE stream.
 */
export function liveAsk(ctx: ServerContext, options: LiveAskOptions): ClientAsk {
  const timeoutMs = options.timeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
  const can = (kind: AskKind) => clientCan(options.capabilities, kind);
  const send = async (
    kind: AskKind,
    method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list',
    params: Record<string, unknown> | undefined,
  ): Promise<unknown> => {
    if (!can(kind)) throw new ClientCannotAnswerError(kind);
    try {
      return await ctx.mcpReq.send(params === undefined ? { method } : { method, params }, {
        signal: options.signal,
        timeout: timeoutMs,
      });
    } catch (error) {
      // The SDK rejects a cancelled request with a timeout error: say what really happened.
      if (options.signal.aborted)
        throw new BridgeError('aborted', 'The call was cancelled.', { cause: error });
      if ((error as { code?: unknown }).code === 'REQUEST_TIMEOUT') {
        throw new BridgeError(
          'timeout',
          `The client did not answer the ${method} request within ${Math.round(timeoutMs / 1000)} s.`,
          {
            cause: error,
          },
        );
      }
      throw new BridgeError('upstream_failed', `The client's ${method} request failed`, { cause: error });
    }
  };
  return {
    can,
    async elicit(question) {
      return checkFormAnswer(
        question.key ?? 'form',
        question,
        await send('form', 'elicitation/create', formParams(question)),
      );
    },
    async elicitUrl(question) {
      const params = urlParams(question, true);
      const answer = checkUrlAnswer(question.key ?? 'url', await send('url', 'elicitation/create', params));
      return { ...answer, elicitationId: String(params.elicitationId) };
    },
    async urlCompleted(elicitationId) {
      await ctx.mcpReq
        .notify({ method: 'notifications/elicitation/complete', params: { elicitationId } })
        .catch(() => {});
    },
    async sample(question) {
      return checkSamplingAnswer(
        question.key ?? 'sampling',
        await send('sampling', 'sampling/createMessage', samplingParams(question)),
      );
    },
    async roots(question) {
      return checkRootsAnswer(question?.key ?? 'roots', await send('roots', 'roots/list', undefined));
    },
  };
}
