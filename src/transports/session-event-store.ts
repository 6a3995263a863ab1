import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

export interface SessionEventStoreOptions {
  /** Events kept; the oldest are dropped first. Default 1,000. */
  maxEvents?: number;
  /** Bytes of serialized messages kept. Default 4 MiB. */
  maxBytes?: number;
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
  #bytes = 0;
  #seq = 0;

  constructor(options: SessionEventStoreOptions = {}) {
    this.#maxEvents = options.maxEvents ?? 1_000;
    this.#maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    return this.append(streamId, JSON.stringify(message));
  }

  /** Keeps the event `text` (a JSON message) of `streamId`; returns its id. */
  append(streamId: string, text: string): string {
    const eventId = `${++this.#seq}`;
    const bytes = Buffer.byteLength(text);
    this.#events.set(eventId, { streamId, text, bytes });
    this.#bytes += bytes;
    for (const [id, event] of this.#events) {
      if (this.#events.size <= this.#maxEvents && this.#bytes <= this.#maxBytes) break;
      if (id === eventId) break;
      this.#events.delete(id);
      this.#bytes -= event.bytes;
    }
    return eventId;
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
