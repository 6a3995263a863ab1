// A raw initialize-era Streamable HTTP session: hand-written JSON-RPC over fetch, every SSE event
// recorded as written (the priming event included), the server's roots and elicitation requests
// answered. For tests that compare streams event by event or act as a misbehaving client.
import { expect } from 'vitest';

export const SESSION_VERSION = '2025-11-25';
const VERSION = SESSION_VERSION;

/** One SSE event as written: its id (when it has one) and its data, parsed (`undefined` when empty). */
export interface RawEvent {
  id?: string;
  data?: Record<string, unknown>;
}

export class RawSession {
  readonly #url: URL;
  #session = '';
  constructor(url: URL) {
    this.#url = url;
  }

  get id(): string {
    return this.#session;
  }

  get url(): URL {
    return this.#url;
  }

  post(message: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    return fetch(this.#url, {
      method: 'POST',
      ...(signal ? { signal } : {}),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': VERSION,
        ...(this.#session ? { 'mcp-session-id': this.#session } : {}),
        ...headers,
      },
      body: JSON.stringify(message),
    });
  }

  resume(lastEventId: string): Promise<Response> {
    return fetch(this.#url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': this.#session,
        'mcp-protocol-version': VERSION,
        'last-event-id': lastEventId,
      },
    });
  }

  async open(capabilities: object): Promise<void> {
    const init = await this.post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities, clientInfo: { name: 'raw', version: '1' } },
    });
    this.#session = String(init.headers.get('mcp-session-id'));
    await init.text();
    await (await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  }

  /** Sends a request and reads its stream to the end, answering the server's questions on the way. */
  async request(id: string, method: string, params: object) {
    const response = await this.post({ jsonrpc: '2.0', id, method, params });
    const events: RawEvent[] = [];
    for await (const event of sseEvents(response)) {
      events.push(event);
      await this.#answer(event.data);
    }
    return { response, events };
  }

  async #answer(message: Record<string, unknown> | undefined): Promise<void> {
    if (!message || message.id === undefined || 'result' in message || 'error' in message) return;
    if (message.method === 'roots/list') {
      await this.#reply(message.id, { roots: [{ uri: 'file:///tmp/a' }] });
    } else if (message.method === 'elicitation/create') {
      const schema = (message.params as { requestedSchema: { properties: object } }).requestedSchema;
      const content = Object.keys(schema.properties).includes('color') ? { color: 'blue' } : { name: 'Ada' };
      await this.#reply(message.id, { action: 'accept', content });
    }
  }

  async #reply(id: unknown, result: object): Promise<void> {
    const reply = await this.post({ jsonrpc: '2.0', id, result });
    expect(reply.status).toBe(202);
    await reply.text();
  }

  async close(): Promise<void> {
    if (this.#session)
      await fetch(this.#url, { method: 'DELETE', headers: { 'mcp-session-id': this.#session } });
  }
}

/** The events of an SSE response as they were written, the priming event (empty data) included. */
export async function* sseEvents(response: Response): AsyncGenerator<RawEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as ReadableStream<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.startsWith(':')) continue;
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      yield { ...(id ? { id } : {}), ...(data ? { data: JSON.parse(data) } : {}) };
    }
  }
}
