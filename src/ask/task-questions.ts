import { type AskCapabilities, clientCan, formParams, samplingParams, urlParams } from './ask-params.js';
import { checkFormAnswer, checkRootsAnswer, checkSamplingAnswer, checkUrlAnswer } from './check-answer.js';
import { type AskKind, type ClientAsk, ClientCannotAnswerError } from './client-ask.js';

type InputRequest = { method: string; params?: Record<string, unknown> };

interface Pending {
  request: InputRequest;
  check: (raw: unknown) => unknown;
  resolve: (answer: unknown) => void;
  reject: (error: unknown) => void;
  /** Sent on a side channel right now (initialize era), so another one does not send it again. */
  sending: boolean;
}

/** Sends one question on a `tasks/result` side channel and resolves with the client's raw answer. */
export type SideChannel = (request: InputRequest) => Promise<unknown>;

/**
 * The questions of one task's tool. A task runs on after its `tools/call` was answered, so a
 * question cannot end the run (as in a 2026-07-28 call); instead the tool waits, the task shows
 * `input_required`, and the answer arrives:
 * - 2025-11-25: as the answer to a server→client request sent on the client's `tasks/result`
 *   request (the spec's side channel), with the related-task `_meta`;
 * - 2026-07-28: in `tasks/update`'s `inputResponses`, after `tasks/get` showed the `inputRequests`.
 * The task goes back to `working` once no question is pending.
 */
export class TaskQuestions {
  readonly #capabilities: AskCapabilities | undefined;
  readonly #signal: AbortSignal;
  readonly #onWaiting: (waiting: boolean) => void;
  readonly #pending = new Map<string, Pending>();
  readonly #channels = new Set<SideChannel>();
  readonly #counters = new Map<AskKind, number>();

  constructor(options: {
    capabilities: AskCapabilities | undefined;
    /** The task's signal: cancelling the task rejects its questions. */
    signal: AbortSignal;
    /** Called when the first question starts waiting, and when the last one is answered. */
    onWaiting: (waiting: boolean) => void;
  }) {
    this.#capabilities = options.capabilities;
    this.#signal = options.signal;
    this.#onWaiting = options.onWaiting;
    this.#signal.addEventListener(
      'abort',
      () => {
        for (const pending of this.#pending.values()) pending.reject(this.#signal.reason);
        this.#pending.clear();
      },
      { once: true },
    );
  }

  readonly ask: ClientAsk = {
    can: (kind) => clientCan(this.#capabilities, kind),
    elicit: (question) => {
      const key = this.#key('form', question.key);
      return this.#question(
        'form',
        key,
        { method: 'elicitation/create', params: formParams(question) },
        (raw) => checkFormAnswer(key, question, raw),
      );
    },
    elicitUrl: (question) => {
      const key = this.#key('url', question.key);
      return this.#question(
        'url',
        key,
        { method: 'elicitation/create', params: urlParams(question, true) },
        (raw) => checkUrlAnswer(key, raw),
      );
    },
    // Only the initialize era has a completion notification; here the call's own result says it.
    urlCompleted: async () => {},
    sample: (question) => {
      const key = this.#key('sampling', question.key);
      const request = { method: 'sampling/createMessage', params: samplingParams(question) };
      return this.#question('sampling', key, request, (raw) => checkSamplingAnswer(key, raw));
    },
    roots: (question) => {
      const key = this.#key('roots', question?.key);
      return this.#question('roots', key, { method: 'roots/list', params: {} }, (raw) =>
        checkRootsAnswer(key, raw),
      );
    },
  };

  /** Whether some question is waiting for its answer (the task is `input_required`). */
  get waiting(): boolean {
    return this.#pending.size > 0;
  }

  /** The pending questions, as 2026-07-28 `tasks/get` shows them. */
  inputRequests(): Record<string, InputRequest> {
    return Object.fromEntries([...this.#pending].map(([key, pending]) => [key, pending.request]));
  }

  /**
   * Answers pending questions from `tasks/update`'s `inputResponses`: all are checked first, and a
   * bad one throws `InvalidAnswerError` with nothing answered. Unknown keys are ignored (the spec).
   */
  answer(responses: Record<string, unknown>): void {
    const answers: Array<[string, Pending, unknown]> = [];
    for (const [key, raw] of Object.entries(responses)) {
      const pending = this.#pending.get(key);
      if (pending) answers.push([key, pending, pending.check(raw)]);
    }
    for (const [key, pending, answer] of answers) this.#settle(key, pending, answer);
  }

  /**
   * Opens a side channel (a `tasks/result` request of the initialize era): every pending question,
   * and every one asked while it is open, is sent on it. Returns the function that closes it.
   */
  attach(channel: SideChannel): () => void {
    this.#channels.add(channel);
    for (const key of this.#pending.keys()) this.#send(key);
    return () => this.#channels.delete(channel);
  }

  #key(kind: AskKind, given: string | undefined): string {
    const n = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, n);
    return given ?? `${kind}-${n}`;
  }

  #question<T>(kind: AskKind, key: string, request: InputRequest, check: (raw: unknown) => T): Promise<T> {
    if (!clientCan(this.#capabilities, kind)) return Promise.reject(new ClientCannotAnswerError(kind));
    if (this.#signal.aborted) return Promise.reject(this.#signal.reason);
    return new Promise<T>((resolve, reject) => {
      const first = this.#pending.size === 0;
      this.#pending.set(key, {
        request,
        check,
        resolve: resolve as (answer: unknown) => void,
        reject,
        sending: false,
      });
      if (first) this.#onWaiting(true);
      this.#send(key);
    });
  }

  #send(key: string): void {
    const pending = this.#pending.get(key);
    const [channel] = this.#channels;
    if (!pending || pending.sending || !channel) return;
    pending.sending = true;
    channel(pending.request).then(
      (raw) => {
        if (this.#pending.get(key) !== pending) return;
        try {
          this.#settle(key, pending, pending.check(raw));
        } catch (error) {
          // A bad answer fails the question: the tool hears why, as a plain call would.
          this.#pending.delete(key);
          pending.reject(error);
          if (this.#pending.size === 0) this.#onWaiting(false);
        }
      },
      () => {
        // The channel closed or failed: the question waits for the next one.
        pending.sending = false;
      },
    );
  }

  #settle(key: string, pending: Pending, answer: unknown): void {
    this.#pending.delete(key);
    if (this.#pending.size === 0) this.#onWaiting(false);
    pending.resolve(answer);
  }
}
