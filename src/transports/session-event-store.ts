import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

export interface SessionEventStoreOptions {
  /** Events kept; the oldest are dropped first. Default 1,000. */
  maxEvents?: number;
  /** Bytes of events kept: their serialized messages, and `EVENT_OVERHEAD` each. Default 4 MiB. */
  maxBytes?: number;
  /** What all the sessions of one server keep together (see `EventBudget`). */
  budget?: EventBudget;
  /** Whose share of the budget the events count against: the session's caller. */
  owner?: string;
}

/**
 * What keeping one event costs besides its message's bytes: its id, its entry in the session's map
 * and in the budget's queue (~160 bytes measured on Node 20). Counted so that many tiny events
 * (progress notifications) cannot hold several times the budget.
 */
export const EVENT_OVERHEAD = 160;

interface Kept {
  store: SessionEventStore;
  id: string;
}

/** One owner's events in the budget, in the order they were kept. */
interface Share {
  /** Entries of events already dropped are skipped. */
  queue: Kept[];
  head: number;
  bytes: number;
  live: number;
}

/**
 * The bytes of events that all the sessions of one server keep together: past `maxBytes`, the
 * oldest event of the owner (the sessions' caller) keeping the most goes first. Without a bound,
 * 1,000 sessions of 4 MiB each could hold 4 GiB; with a bound on the oldest events of anyone, one
 * caller sending large answers from many sessions (or one answer past the bound) would push every
 * other caller's events out, and their streams could no longer resume. A caller over its share
 * loses its own events first, the one just kept included.
 */
export class EventBudget {
  readonly #maxBytes: number;
  #bytes = 0;
  readonly #shares = new Map<string, Share>();

  constructor(maxBytes = 64 * 1024 * 1024) {
    this.#maxBytes = maxBytes;
  }

  /** Accounts an event `store` just kept, dropping events of the largest owner while over budget. */
  kept(store: SessionEventStore, id: string, bytes: number): void {
    let share = this.#shares.get(store.owner);
    if (!share) {
      share = { queue: [], head: 0, bytes: 0, live: 0 };
      this.#shares.set(store.owner, share);
    }
    share.queue.push({ store, id });
    share.bytes += bytes;
    share.live++;
    this.#bytes += bytes;
    while (this.#bytes > this.#maxBytes) {
      const largest = this.#largest();
      if (!largest || !this.#dropOldest(largest)) break;
    }
    // Entries of events their own store dropped pile up: compacted once they outnumber the live.
    if (share.head > 1_024 && share.head * 2 > share.queue.length) compact(share);
    else if (share.queue.length - share.head > 2 * share.live + 1_024) compact(share);
  }

  /** An event of `owner` was dropped (by its store's own bounds, by the budget, or with its session). */
  released(owner: string, bytes: number): void {
    this.#bytes -= bytes;
    const share = this.#shares.get(owner);
    if (!share) return;
    share.bytes -= bytes;
    if (--share.live === 0) this.#shares.delete(owner);
  }

  /** Bytes kept now, all sessions together (for tests). */
  get bytes(): number {
    return this.#bytes;
  }

  #largest(): Share | undefined {
    let largest: Share | undefined;
    for (const share of this.#shares.values()) if (!largest || share.bytes > largest.bytes) largest = share;
    return largest;
  }

  // Drops the oldest event `share` still keeps; false when it keeps none.
  #dropOldest(share: Share): boolean {
    while (share.head < share.queue.length) {
      const oldest = share.queue[share.head++] as Kept;
      if (!oldest.store.holds(oldest.id)) continue;
      oldest.store.drop(oldest.id);
      return true;
    }
    return false;
  }
}

function compact(share: Share): void {
  share.queue = share.queue.slice(share.head).filter(({ store, id }) => store.holds(id));
  share.head = 0;
}

interface StoredEvent {
  streamId: string;
  /** The message as JSON text: what a stream writes, so that it is serialized once. */
  text: string;
  bytes: number;
}

/**
 * The last events of one initialize-era HTTP session, so that a client whose SSE stream broke can
 * reconnect with `Last-Event-ID` and receive what it missed (the spec's resumability). One store
 * per session: an event id never opens another session's stream. Bounded by count and bytes; an
 * id that has been dropped is refused (400) and the client starts the stream afresh.
 *
 * The SDK's session transport uses it through `EventStore`; the session lane (see
 * `direct-session-call.ts`) through the synchronous methods, with messages already serialized.
 */
export class SessionEventStore implements EventStore {
  /** In insertion order, which is event order. */
  readonly #events = new Map<string, StoredEvent>();
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  readonly #budget: EventBudget | undefined;
  /** Whose share of the budget this session's events count against. */
  readonly owner: string;
  #bytes = 0;
  #seq = 0;

  constructor(options: SessionEventStoreOptions = {}) {
    this.#maxEvents = options.maxEvents ?? 1_000;
    this.#maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
    this.#budget = options.budget;
    this.owner = options.owner ?? '';
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    return this.append(streamId, JSON.stringify(message));
  }

  /** Keeps the event `text` (a JSON message) of `streamId`; returns its id. */
  append(streamId: string, text: string): string {
    const eventId = `${++this.#seq}`;
    const bytes = Buffer.byteLength(text) + EVENT_OVERHEAD;
    this.#events.set(eventId, { streamId, text, bytes });
    this.#bytes += bytes;
    for (const id of this.#events.keys()) {
      if (this.#events.size <= this.#maxEvents && this.#bytes <= this.#maxBytes) break;
      if (id === eventId) break;
      this.drop(id);
    }
    this.#budget?.kept(this, eventId, bytes);
    return eventId;
  }

  /** Drops one event, if still kept. */
  drop(eventId: string): void {
    const event = this.#events.get(eventId);
    if (!event) return;
    this.#events.delete(eventId);
    this.#bytes -= event.bytes;
    this.#budget?.released(this.owner, event.bytes);
  }

  /** Whether an event is still kept. */
  holds(eventId: string): boolean {
    return this.#events.has(eventId);
  }

  /** Drops every event: the session ended. */
  clear(): void {
    for (const id of [...this.#events.keys()]) this.drop(id);
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.streamOf(eventId);
  }

  /** The stream an event belongs to; `undefined` when the id is unknown or was dropped. */
  streamOf(eventId: string): string | undefined {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (!last) throw new Error(`Unknown or expired event id ${JSON.stringify(lastEventId)}`);
    for (const [id, text] of this.eventsAfter(lastEventId)) await send(id, JSON.parse(text));
    return last.streamId;
  }

  /** The events of the same stream after `lastEventId`, as [id, JSON text]; none for an unknown id. */
  eventsAfter(lastEventId: string): Array<[string, string]> {
    const last = this.#events.get(lastEventId);
    const after: Array<[string, string]> = [];
    if (!last) return after;
    let found = false;
    for (const [id, event] of this.#events) {
      if (id === lastEventId) found = true;
      else if (found && event.streamId === last.streamId) after.push([id, event.text]);
    }
    return after;
  }

  /** Events held now (for tests). */
  get size(): number {
    return this.#events.size;
  }
}
