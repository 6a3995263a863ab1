/**
 * The `tools/call` requests of one initialize-era session that the SDK's transport is running,
 * each POST's group holding its caller's call slots (see `CallLimits`) until the server has sent
 * the last of its answers. In a session a client that goes away does not cancel its calls (the
 * spec asks for `notifications/cancelled`), so releasing the slots when the connection closes
 * would let one caller start unbounded work by sending calls and hanging up.
 */
export class SessionCalls {
  readonly #groups = new Map<string | number, { left: number; release: () => void }>();

  /** The calls `ids` run until answered; `release` frees their slots then. */
  track(ids: ReadonlyArray<string | number>, release: () => void): void {
    const group = { left: ids.length, release };
    for (const id of ids) this.#groups.set(id, group);
  }

  /** The server answered `id`, or the client cancelled it (then no answer comes). */
  answered(id: string | number): void {
    const group = this.#groups.get(id);
    if (!group) return;
    this.#groups.delete(id);
    if (--group.left === 0) group.release();
  }

  /** The calls will never be answered on this session (it refused them, or it closed). */
  forget(ids: Iterable<string | number> = [...this.#groups.keys()]): void {
    for (const id of ids) {
      const group = this.#groups.get(id);
      this.#groups.delete(id);
      group?.release();
    }
  }
}
