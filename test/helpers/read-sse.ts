/** One server-sent event: its id, when it has one, and its JSON data. */
export interface SseEvent {
  id?: string;
  data: Record<string, unknown>;
}

/** Reads SSE events from `response` until `stop` says so or the stream ends. */
export async function readEvents(
  response: Response,
  stop: (event: SseEvent) => boolean,
): Promise<SseEvent[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!data) continue;
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const event: SseEvent = { data: JSON.parse(data), ...(id ? { id } : {}) };
      events.push(event);
      if (stop(event)) {
        await reader.cancel();
        return events;
      }
    }
  }
}
