import type { JsonSchema } from '../tool.js';

/**
 * What a tool may ask the client during a call: the user (form or URL elicitation), the client's
 * model (sampling), or the client's roots. One contract, two implementations chosen by the
 * request's protocol era:
 *
 * - **initialize era** (up to 2025-11-25): a real server→client request sent while the call runs,
 *   related to it (on stdio, and on the POST's SSE stream over HTTP). The promise settles with the
 *   answer; the call's cancellation and the ask timeout reach the request.
 * - **2026-07-28**: a question that has no answer yet ends this run of the tool. The call answers
 *   `resultType: "input_required"` with the questions and a signed request state; the client
 *   retries with the answers and the tool runs again **from the start**, this time getting the
 *   answers from the same calls. Several rounds are possible.
 *
 * So: ask before acting. Everything a tool does before its last question must be free of side
 * effects (reading, computing, building an argv), because it runs once per round; run the process
 * or send the request only after every answer is in. Never catch the interrupt a question throws:
 * let it propagate (the registry and the server handle it).
 *
 * Questions are identified by `key` (default: `<kind>-<n>` in the order they are asked), which must
 * be stable across rounds. Asking several questions with `Promise.all` sends them in one round.
 *
 * @example Confirm before deleting
 * ```ts
 * if (context.ask?.can('form')) {
 *   const answer = await context.ask.elicit({
 *     key: 'confirm',
 *     message: `Delete branch ${name}?`,
 *     requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
 *   });
 *   if (answer.action !== 'accept' || answer.content.ok !== true) return textResult('Declined.', true);
 * }
 * ```
 */
export interface ClientAsk {
  /**
   * Whether the client declared, for this call, that it can answer this kind of question:
   * `form` / `url` (elicitation modes), `sampling`, `roots`. Asking anyway throws
   * `ClientCannotAnswerError` (an `isError` result in the initialize era, JSON-RPC -32021 in 2026-07-28).
   */
  can(kind: AskKind): boolean;
  /** Asks the user to fill a form. Accepted content has been checked against `requestedSchema`. */
  elicit(question: FormQuestion): Promise<FormAnswer>;
  /**
   * Asks the user to open a URL (a sign-in page, a payment). `accept` means the user agreed to open
   * it, not that the flow at the URL finished: wait for that out of band (e.g. an OAuth redirect).
   */
  elicitUrl(question: UrlQuestion): Promise<UrlAnswer>;
  /**
   * Tells the client that the interaction a URL question started has finished (initialize era:
   * `notifications/elicitation/complete` with the answer's `elicitationId`; elsewhere nothing).
   */
  urlCompleted(elicitationId: string): Promise<void>;
  /** Asks the client's model for a completion. */
  sample(question: SamplingQuestion): Promise<SamplingAnswer>;
  /** The client's roots (`file://` URIs and others, as the client lists them). */
  roots(question?: { key?: string }): Promise<ClientRoot[]>;
}

/** The kinds of questions a client may support. */
export type AskKind = 'form' | 'url' | 'sampling' | 'roots';

/** A form-mode elicitation: MCP's restricted schema, a flat object of primitive properties. */
export interface FormQuestion {
  /** Stable identifier of the question within the call (see `ClientAsk`). */
  key?: string;
  /** What to show the user. */
  message: string;
  /**
   * The answer gates what runs (a confirmation): in the 2026-07-28 era it counts only for a question
   * a previous round asked, as its sealed state records it, never given up front with the call.
   */
  gate?: boolean;
  requestedSchema: {
    type: 'object';
    properties: Record<string, JsonSchema>;
    required?: string[];
  };
}

export type FormAnswer =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' | 'cancel' };

/** A URL-mode elicitation. */
export interface UrlQuestion {
  key?: string;
  message: string;
  url: string;
  /**
   * Identifies the interaction in the initialize era, where the server may later send
   * `notifications/elicitation/complete`; generated when absent.
   */
  elicitationId?: string;
}

export interface UrlAnswer {
  action: 'accept' | 'decline' | 'cancel';
  /** The id of the interaction (initialize era), for `urlCompleted`. */
  elicitationId?: string;
}

/** `sampling/createMessage` parameters, passed through as the spec defines them. */
export interface SamplingQuestion {
  key?: string;
  messages: Array<{ role: 'user' | 'assistant'; content: Record<string, unknown> }>;
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: Record<string, unknown>;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  metadata?: Record<string, unknown>;
}

export interface SamplingAnswer {
  role: 'assistant';
  content: Record<string, unknown> | Record<string, unknown>[];
  model: string;
  stopReason?: string;
}

export interface ClientRoot {
  uri: string;
  name?: string;
}

/**
 * Thrown by `ClientAsk` methods, never to be caught by tools: the call must end here (a question
 * waits for the client's next round, or the client cannot answer). The registry lets it through.
 */
export abstract class AskInterrupt extends Error {}

/** The client did not declare the capability a question needs. */
export class ClientCannotAnswerError extends AskInterrupt {
  override readonly name = 'ClientCannotAnswerError';
  /** The capability the client lacks, as the spec spells it: `{ elicitation: { form: {} } }`. */
  readonly requiredCapabilities: Record<string, unknown>;

  constructor(kind: AskKind) {
    super(
      `The client cannot answer this: it did not declare the ${CAPABILITY_NAMES[kind]} capability. Use a client that supports it, or configure the bridge not to ask.`,
    );
    this.requiredCapabilities = REQUIRED_CAPABILITIES[kind];
  }
}

const CAPABILITY_NAMES: Record<AskKind, string> = {
  form: 'elicitation (form mode)',
  url: 'elicitation (URL mode)',
  sampling: 'sampling',
  roots: 'roots',
};

const REQUIRED_CAPABILITIES: Record<AskKind, Record<string, unknown>> = {
  form: { elicitation: { form: {} } },
  url: { elicitation: { url: {} } },
  sampling: { sampling: {} },
  roots: { roots: {} },
};
