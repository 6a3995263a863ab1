/**
 * Counts the `tools/call` requests each caller has in flight over HTTP, so that one caller (or one
 * 100-call batch) cannot start unbounded work at once: a request that would go over the limit is
 * refused whole, before anything runs. A second instance counts each caller's open listen and GET
 * streams the same way, and a third each address's open connections (see `connectionsPerAddress`).
 */
export class CallLimits {
  readonly #inFlight = new Map<string, number>();
  readonly #max: number;

  constructor(maxPerCaller: number) {
    this.#max = maxPerCaller;
  }

  /**
   * Takes `count` slots for `caller`; returns the release function, or `undefined` when that would
   * exceed the limit (nothing is taken then).
   */
  acquire(caller: string, count: number): (() => void) | undefined {
    if (count === 0) return () => {};
    const current = this.#inFlight.get(caller) ?? 0;
    if (current + count > this.#max) return undefined;
    this.#inFlight.set(caller, current + count);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#inFlight.get(caller) ?? count) - count;
      if (left <= 0) this.#inFlight.delete(caller);
      else this.#inFlight.set(caller, left);
    };
  }

  /** How many calls `caller` has in flight. */
  inFlight(caller: string): number {
    return this.#inFlight.get(caller) ?? 0;
  }
}

/** The JSON-RPC requests in a parsed body (one message or a batch). */
export function requestsIn(body: unknown): Array<{ id: string | number; method: string }> {
  const messages = Array.isArray(body) ? body : [body];
  const requests: Array<{ id: string | number; method: string }> = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { id, method } = message as { id?: unknown; method?: unknown };
    if ((typeof id === 'string' || typeof id === 'number') && typeof method === 'string') {
      requests.push({ id, method });
    }
  }
  return requests;
}
