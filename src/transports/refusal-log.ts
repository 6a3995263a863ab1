import type { Logger } from '../logger.js';

/**
 * Logs refusals (failed authentication, timeouts, limits) at `warning` without letting a flood of
 * bad requests flood the log: per kind, at most one line per `intervalMs`; the next line says how
 * many were left out meanwhile, and `close` says it of those no line followed.
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

  /**
   * Logs, per kind, how many refusals were left out since its last line: at shutdown no next line
   * comes to say it, and the end of a flood is what was left out. Call it when the server stops.
   */
  close(): void {
    for (const [kind, state] of this.#kinds) {
      if (state.suppressed === 0) continue;
      this.#log.warn(`http: refused (${kind}): ${state.suppressed} more ${kind} refusals not logged`);
      state.suppressed = 0;
    }
  }
}
