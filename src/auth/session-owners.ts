/**
 * Which authenticated subject owns each initialize-era session id. The first authenticated
 * request that carries an id claims it (that is the client that received it from `initialize`:
 * ids are random UUIDs nobody else can know yet); any other subject is refused afterwards, so a
 * leaked session id is useless without the owner's token.
 *
 * Bounded: past `max` ids the least recently used are forgotten (and would be claimed again by
 * their next user), so random ids sent by a caller cannot grow memory.
 */
export class SessionOwners {
  readonly #owners = new Map<string, string>();
  readonly #max: number;

  constructor(max = 10_000) {
    this.#max = max;
  }

  /** Records `subject` as the owner of `sessionId` if it has none; false if someone else owns it. */
  claim(sessionId: string, subject: string): boolean {
    const owner = this.#owners.get(sessionId);
    if (owner !== undefined && owner !== subject) return false;
    // Re-insert to keep least-recently-used order.
    this.#owners.delete(sessionId);
    this.#owners.set(sessionId, subject);
    if (this.#owners.size > this.#max) this.#owners.delete(this.#owners.keys().next().value as string);
    return true;
  }
}
