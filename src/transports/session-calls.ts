interface Group {
  ids: ReadonlyArray<string | number>;
  left: number;
  release: () => void;
}

/**
 * The `tools/call` requests of one initialize-era session that the SDK's transport is running,
 * each POST's group holding its caller's call slots (see `CallLimits`) until the server has sent
 * the last of its answers. In a session a client that goes away does not cancel its calls (the
 * spec asks for `notifications/cancelled`), so releasing the slots when the connection closes
 * would let one caller start unbounded work by sending calls and hanging up.
 *
 * A client may reuse a request id (in one batch, or while a call of that id still runs): each
 * answer settles the oldest call waiting under its id, and every group still held is released when
 * the session closes, so that no reuse keeps a caller's slots past its session.
 */
export class SessionCalls {
  /** Per request id, the groups waiting for an answer to it, oldest first. */
  readonly #waiting = new Map<string | number, Group[]>();
  readonly #groups = new Set<Group>();

  /**
   * The calls `ids` run until answered; `release` frees their slots then. Returns what forgets
   * them early: the session refused them, so no answer comes.
   */
  track(ids: ReadonlyArray<string | number>, release: () => void): () => void {
    const group = { ids, left: ids.length, release };
    this.#groups.add(group);
    for (const id of ids) {
      const waiting = this.#waiting.get(id);
      if (waiting) waiting.push(group);
      else this.#waiting.set(id, [group]);
    }
    return () => this.#end(group);
  }

  /** The server answered `id`, or its handler ended after the client cancelled it (no answer comes). */
  answered(id: string | number): void {
    const waiting = this.#waiting.get(id);
    const group = waiting?.shift();
    if (!group) return;
    if (waiting?.length === 0) this.#waiting.delete(id);
    if (--group.left === 0) this.#end(group);
  }

  /** Whether a call of request `id` is still held. */
  holds(id: string | number): boolean {
    return this.#waiting.has(id);
  }

  /** The session closed: none of its calls will be answered. */
  forget(): void {
    for (const group of this.#groups) this.#end(group);
  }

  #end(group: Group): void {
    if (!this.#groups.delete(group)) return;
    for (const id of group.ids) {
      const waiting = this.#waiting.get(id)?.filter((other) => other !== group);
      if (waiting?.length) this.#waiting.set(id, waiting);
      else this.#waiting.delete(id);
    }
    group.release();
  }
}
