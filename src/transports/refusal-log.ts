import type { Logger } from '../logger.js';

/**
 * Logs refusals (failed authentication, timeouts, limits) at `warning` without letting a flood of
 * bad requests flood the log: per kind, at most one line per `intervalMs`; the next line says how
 * many were left out meanwhile.
 */
export class RefusalLog {
  readonly #log: Logger;
  readonly #intervalMs: number;
  readonly #kinds = new Map<string, { lastAt: number; suppressed: number }>();

  constructor(log: Logger, intervalMs = 10_000) {
    this.#log = log;
    this.#intervalMs = intervalMs;
  }

  /** Records one refusal of `kind`; `message` should say who was refused and why. */
  refused(kind: string, message: string): void {
    const now = Date.now();
    const state = this.#kinds.get(kind);
    if (state && now - state.lastAt < this.#intervalMs) {
      state.suppressed++;
      return;
    }
    const more = state?.suppressed ? ` (${state.suppressed} more ${kind} refusals not logged)` : '';
    this.#kinds.set(kind, { lastAt: now, suppressed: 0 });
    // Bounded: the kinds are a fixed set chosen by the code, never taken from requests.
    this.#log.warn(`http: refused (${kind}): ${message}${more}`);
  }
}
