/**
 * How long to leave an unreachable server alone after a failed fetch: `firstMs`, doubling with each
 * failure in a row up to `maxMs`; a success starts over. Without it, every request that needs the
 * server (e.g. each unauthenticated request while an authorization server is down) would fetch
 * again, so a flood of bad tokens would become a flood of outbound requests.
 */
export class FailureBackoff {
  readonly #firstMs: number;
  readonly #maxMs: number;
  #failures = 0;
  #until = 0;

  constructor(firstMs = 2_000, maxMs = 60_000) {
    this.#firstMs = firstMs;
    this.#maxMs = Math.max(firstMs, maxMs);
  }

  /** Milliseconds before the next attempt may go; 0 when it may go now. */
  waitMs(): number {
    return Math.max(0, this.#until - Date.now());
  }

  failed(): void {
    this.#until = Date.now() + Math.min(this.#maxMs, this.#firstMs * 2 ** this.#failures);
    this.#failures++;
  }

  succeeded(): void {
    this.#failures = 0;
    this.#until = 0;
  }
}
