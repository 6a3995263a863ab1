import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type Transport,
} from '@modelcontextprotocol/server';
import { clipErrorAnswer } from '../server/clip-error-answer.js';

/** The longest line accepted from the client (10 MiB, as the SDK's own stdio transport). */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * Answers written but not yet read by the client above which the bridge reads no more requests
 * until the client catches up: a client that writes requests without reading the answers (5,000
 * lists of a 1,000-tool spec in 240 KB) otherwise made the bridge queue gigabytes of them.
 */
const MAX_UNREAD_BYTES = 16 * 1024 * 1024;
/**
 * Requests handled from one read before the rest waits a turn: their answers, written meanwhile,
 * count towards `MAX_UNREAD_BYTES` before more are handled (one 64 KiB read holds ~1,300 lists).
 */
const LINES_PER_TURN = 16;

/**
 * Newline-delimited JSON-RPC over stdin/stdout. Unlike the SDK's stdio transport, which skips a
 * malformed line silently, this one answers it as JSON-RPC says: -32700 for a line that is not
 * JSON, -32600 for JSON that is not a JSON-RPC message. The connection goes on either way.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Sees each parsed line first, before it is checked as JSON-RPC: `take` returning `true` keeps
   * it from `onmessage`, so it must take only what those checks accept (see `StdioLane`).
   */
  interceptor?: { take(message: unknown): boolean; closed(): void };

  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #discarding = false;
  #closed = false;
  /** Read but not yet handled: the rest of a read, held while the client catches up (see `#hold`). */
  #held: Buffer | undefined;
  /** Ids of requests made up by the bridge (see `deliverQuietly`), whose answers are not sent. */
  readonly #quiet = new Set<string | number>();

  constructor(stdin: NodeJS.ReadableStream = process.stdin, stdout: NodeJS.WritableStream = process.stdout) {
    this.#stdin = stdin;
    this.#stdout = stdout;
  }

  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('end', this.#onEnd);
    this.#stdin.on('close', this.#onEnd);
    this.#stdin.on('error', this.#onError);
    this.#stdout.on('error', this.#onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#quiet.size > 0 && 'id' in message && this.#quiet.delete(message.id as string | number)) {
      return Promise.resolve();
    }
    // Some of the SDK's refusals quote the request whole: bounded on the way out.
    return this.write(`${JSON.stringify(clipErrorAnswer(message))}\n`);
  }

  /**
   * Hands `request` to the SDK as if the client had sent it, and keeps the SDK's answer to it off
   * the wire. Its id must be one no client can have chosen.
   */
  deliverQuietly(request: JSONRPCRequest): void {
    if (this.#closed) return;
    this.#quiet.add(request.id);
    this.onmessage?.(request);
  }

  /** Writes one message already serialized: a whole line, newline included. */
  write(line: string | Uint8Array): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('stdio transport is closed'));
    return new Promise((resolve, reject) => {
      this.#stdout.write(line, (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    this.#stdin.off('close', this.#onEnd);
    this.#stdin.off('error', this.#onError);
    this.#stdin.pause();
    this.#chunks = [];
    this.#held = undefined;
    this.interceptor?.closed();
    this.onclose?.();
  }

  readonly #onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let handled = 0;
    for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10)) {
      const part = data.subarray(0, newline);
      data = data.subarray(newline + 1);
      if (this.#chunks.length === 0 && !this.#discarding && part.length <= MAX_LINE_BYTES) {
        // The usual case, a whole line within one chunk: decoded in place, without copies.
        this.#handleLine(part.toString('utf8'));
      } else {
        this.#take(part);
        const line = Buffer.concat(this.#chunks).toString('utf8');
        this.#chunks = [];
        this.#buffered = 0;
        if (this.#discarding) this.#discarding = false;
        else this.#handleLine(line);
      }
      if (data.length > 0 && (++handled === LINES_PER_TURN || this.#unread() > MAX_UNREAD_BYTES)) {
        this.#hold(data);
        return;
      }
    }
    this.#take(data);
  };

  #unread(): number {
    return (this.#stdout as { writableLength?: number }).writableLength ?? 0;
  }

  // Stops reading, and handles `rest` once the client has read what was written (or, when it has,
  // after a turn in which the answers of the requests handled so far are written).
  #hold(rest: Buffer): void {
    this.#held = rest;
    this.#stdin.pause();
    const go = () => {
      const held = this.#held;
      this.#held = undefined;
      if (this.#closed || !held) return;
      this.#onData(held);
      if (!this.#held && !this.#closed) this.#stdin.resume();
    };
    if (this.#unread() <= MAX_UNREAD_BYTES) {
      setImmediate(go);
      return;
    }
    // A client that exits unread closes the pipe: the write fails, and there is nothing to wait for.
    const gone = () => void this.close();
    this.#stdout.once('close', gone);
    this.#stdout.once('drain', () => {
      this.#stdout.off('close', gone);
      go();
    });
  }

  #take(part: Buffer): void {
    if (this.#discarding || part.length === 0) return;
    this.#buffered += part.length;
    if (this.#buffered > MAX_LINE_BYTES) {
      this.#chunks = [];
      this.#buffered = 0;
      this.#discarding = true;
      this.#reply(null, -32600, `Invalid Request: message longer than ${MAX_LINE_BYTES} bytes`);
      return;
    }
    this.#chunks.push(Buffer.from(part));
  }

  #handleLine(raw: string): void {
    const line = raw.trim();
    if (line === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      this.#reply(null, -32700, `Parse error: ${(error as Error).message}`);
      return;
    }
    // The lane checks what it takes more strictly than the schemas below, which cost a plain call
    // more than the rest of reading it.
    if (this.interceptor?.take(parsed)) return;
    if (
      isJSONRPCRequest(parsed) ||
      isJSONRPCNotification(parsed) ||
      isJSONRPCResultResponse(parsed) ||
      isJSONRPCErrorResponse(parsed)
    ) {
      this.onmessage?.(parsed);
      return;
    }
    const id = (parsed as { id?: unknown } | null)?.id;
    const echoed = typeof id === 'string' || typeof id === 'number' ? id : null;
    this.#reply(echoed, -32600, 'Invalid Request: not a JSON-RPC 2.0 message');
  }

  #reply(id: string | number | null, code: number, message: string): void {
    const line = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
    this.#stdout.write(`${line}\n`);
  }

  readonly #onEnd = () => {
    void this.close();
  };

  readonly #onError = (error: Error) => {
    this.onerror?.(error);
  };
}
