import type { InputRequiredResult } from '@modelcontextprotocol/server';
import { type AskCapabilities, clientCan, formParams, samplingParams, urlParams } from './ask-params.js';
import { checkFormAnswer, checkRootsAnswer, checkSamplingAnswer, checkUrlAnswer } from './check-answer.js';
import { AskInterrupt, type AskKind, type ClientAsk, ClientCannotAnswerError } from './client-ask.js';
import { canonicalJson, digest, type RequestStateKeeper, type RoundState } from './request-state.js';

/** A question without an answer yet: this run of the tool ends, the call answers `input_required`. */
export class InputRequiredInterrupt extends AskInterrupt {
  override readonly name = 'InputRequiredInterrupt';
  constructor() {
    super('The call needs input from the client; it continues when the client retries with the answers.');
  }
}

type InputRequest = { method: string; params?: Record<string, unknown> };

/**
 * One round of a 2026-07-28 call: the answers it brings (from the verified request state of earlier
 * rounds, and from the retry's `inputResponses`), and the questions the tool asked without an answer.
 */
export class InputRound {
  readonly #capabilities: AskCapabilities | undefined;
  readonly #prior: RoundState | undefined;
  readonly #responses: Record<string, unknown>;
  /** The call's binding digest (see `RequestStateKeeper.bind`), computed only when a state is sealed. */
  readonly #bind: () => string;
  /** Every answer this round can hand on: earlier rounds' plus those used now. */
  readonly #answers: RoundState['answers'];
  readonly #pending = new Map<string, { request: InputRequest; digest: string }>();
  readonly #counters = new Map<AskKind, number>();

  /**
   * @param prior the opened request state of the previous round, if the retry carried one
   * @param responses the retry's `inputResponses`. Keys the bridge did not ask are ignored, as the
   *   spec says; a first round may carry answers without a state (a client answering up front),
   *   except to a gate (`FormQuestion.gate`: a confirmation), which counts only as the answer to a
   *   question `prior` holds: given up front it would confirm a call nobody was asked about, and
   *   could be sent again and again, while a state opens once.
   */
  constructor(options: {
    capabilities: AskCapabilities | undefined;
    prior?: RoundState;
    responses?: Record<string, unknown>;
    bind: () => string;
  }) {
    this.#capabilities = options.capabilities;
    this.#prior = options.prior;
    this.#responses = options.responses ?? {};
    this.#bind = options.bind;
    this.#answers = { ...(options.prior?.answers ?? {}) };
  }

  /** The `ClientAsk` the tool gets for this round. */
  readonly ask: ClientAsk = {
    can: (kind) => clientCan(this.#capabilities, kind),
    elicit: async (question) => {
      const key = this.#key('form', question.key);
      const request = { method: 'elicitation/create', params: formParams(question) };
      return this.#answer('form', key, request, (raw) => checkFormAnswer(key, question, raw), question.gate);
    },
    elicitUrl: async (question) => {
      const key = this.#key('url', question.key);
      const request = { method: 'elicitation/create', params: urlParams(question, false) };
      return this.#answer('url', key, request, (raw) => checkUrlAnswer(key, raw));
    },
    // Only the initialize era has a completion notification; here the call's own result says it.
    urlCompleted: async () => {},
    sample: async (question) => {
      const key = this.#key('sampling', question.key);
      const request = { method: 'sampling/createMessage', params: samplingParams(question) };
      return this.#answer('sampling', key, request, (raw) => checkSamplingAnswer(key, raw));
    },
    roots: async (question) => {
      const key = this.#key('roots', question?.key);
      const request = { method: 'roots/list', params: {} };
      return this.#answer('roots', key, request, (raw) => checkRootsAnswer(key, raw));
    },
  };

  /** Whether the tool asked something still unanswered (even if it caught the interrupt). */
  get waiting(): boolean {
    return this.#pending.size > 0;
  }

  /** The `input_required` result of this round, with the state for the next. */
  result(keeper: RequestStateKeeper): InputRequiredResult {
    const inputRequests: Record<string, InputRequest> = {};
    const pending: Record<string, string> = {};
    for (const [key, entry] of this.#pending) {
      inputRequests[key] = entry.request;
      pending[key] = entry.digest;
    }
    const requestState = keeper.seal({ bind: this.#bind(), answers: this.#answers, pending });
    return { resultType: 'input_required', inputRequests, requestState } as InputRequiredResult;
  }

  #key(kind: AskKind, given: string | undefined): string {
    const n = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, n);
    return given ?? `${kind}-${n}`;
  }

  // Synchronous up to the throw, so that questions asked together (Promise.all) share a round.
  #answer<T>(kind: AskKind, key: string, request: InputRequest, check: (raw: unknown) => T, gate = false): T {
    if (!clientCan(this.#capabilities, kind)) throw new ClientCannotAnswerError(kind);
    const questionDigest = digest(canonicalJson(request));
    const earlier = this.#answers[key];
    if (earlier && earlier.d === questionDigest) return check(earlier.r);
    // An answer counts for the very question the previous round asked under that key, as its
    // sealed state records it; on a first round, for any question but a gate.
    const fresh = this.#responses[key];
    const asked = this.#prior ? this.#prior.pending[key] === questionDigest : !gate;
    if (fresh !== undefined && asked) {
      const answer = check(fresh);
      this.#answers[key] = { d: questionDigest, r: fresh };
      return answer;
    }
    this.#pending.set(key, { request, digest: questionDigest });
    throw new InputRequiredInterrupt();
  }
}
