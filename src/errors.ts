/**
 * The one error class of the bridge. `code` says what kind of failure it is, so callers branch on
 * the code rather than on the message; `cause` keeps the original error.
 */
export type BridgeErrorCode =
  /** The user's input to the bridge itself is wrong: a flag, a spec, a config file. */
  | 'invalid_input'
  /** A source could not be loaded (unreadable spec, unreachable endpoint, unknown program). */
  | 'load_failed'
  /** A tool's arguments do not satisfy its input schema or the source's policy. */
  | 'invalid_arguments'
  /** A protocol request the bridge refuses as asked: a task TTL out of bounds, an unknown cursor, cancelling a finished task. */
  | 'invalid_params'
  /** A bounded store is full of entries that cannot be evicted yet (running tasks). */
  | 'capacity'
  /** The upstream (HTTP API, GraphQL server, process) failed. */
  | 'upstream_failed'
  /** The call was cancelled by the client or by shutdown. */
  | 'aborted'
  /** The user declined or cancelled something the call needed (a sign-in): nothing ran. */
  | 'declined'
  /** The call ran past its time limit. */
  | 'timeout'
  /** A shared store (Redis) the call needs cannot be reached right now; retrying later may work. */
  | 'unavailable'
  /** Anything else: a bug in the bridge. */
  | 'internal';

export class BridgeError extends Error {
  override readonly name = 'BridgeError';
  readonly code: BridgeErrorCode;

  constructor(code: BridgeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * The JSON-RPC error code of each `BridgeError` code, for the failures that are answered as
 * protocol errors (task refusals) rather than as `isError` tool results: the one table the
 * server's error answers come from. -32602 is "invalid params", -32603 "internal error".
 */
export const JSON_RPC_ERROR_CODES: Readonly<Record<BridgeErrorCode, number>> = {
  invalid_input: -32602,
  invalid_arguments: -32602,
  invalid_params: -32602,
  load_failed: -32603,
  upstream_failed: -32603,
  aborted: -32603,
  timeout: -32603,
  capacity: -32603,
  declined: -32603,
  unavailable: -32603,
  internal: -32603,
};

/** Normalises anything thrown into a `BridgeError`, keeping the original as `cause`. */
export function toBridgeError(error: unknown, code: BridgeErrorCode = 'internal'): BridgeError {
  if (error instanceof BridgeError) return error;
  if (error instanceof Error) {
    if (error.name === 'AbortError')
      return new BridgeError('aborted', 'The call was cancelled.', { cause: error });
    return new BridgeError(code, error.message, { cause: error });
  }
  return new BridgeError(code, String(error), { cause: error });
}

/** The message of an error followed by the messages of its causes: `a: b: c`. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message && !parts.some((part) => part.includes(message))) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
}
