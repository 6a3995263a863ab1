// A raw JSON-RPC client over a bridge process's stdio, one message per line, for tests that must see
// the answers as the bridge wrote them (byte for byte) and every line it wrote.
import { type ChildProcess, spawn } from 'node:child_process';
import { BRIDGE_BIN } from './start-bridge.js';

export class LineClient {
  readonly child: ChildProcess;
  /** Every line the bridge wrote, in order. */
  readonly lines: string[] = [];
  #buffer = '';
  readonly #waiting = new Map<string | number, (line: string) => void>();

  /**
   * Starts `bridge ...args` (or another compiled `script`, a test server), with `env` added to
   * this process's environment; stderr is dropped.
   */
  constructor(args: string[], env: Record<string, string> = {}, script = BRIDGE_BIN) {
    this.child = spawn(process.execPath, [script, ...args], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, ...env },
    });
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (let at = this.#buffer.indexOf('\n'); at >= 0; at = this.#buffer.indexOf('\n')) {
        const line = this.#buffer.slice(0, at);
        this.#buffer = this.#buffer.slice(at + 1);
        this.lines.push(line);
        const { id } = JSON.parse(line) as { id?: string | number };
        if (id !== undefined) this.#waiting.get(id)?.(line);
      }
    });
  }

  /** The answer's line as written, to request `id`. */
  line(id: string | number, method: string, params: Record<string, unknown>): Promise<string> {
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  /** Writes `messages` in one write, as a client that sends them together without waiting. */
  write(...messages: Array<Record<string, unknown>>): void {
    this.child.stdin?.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
  }

  /** The first line written, parsed, that `wanted` accepts; undefined if none by `timeoutMs`. */
  async seen(
    wanted: (message: Record<string, unknown>) => boolean,
    timeoutMs = 10_000,
  ): Promise<Record<string, unknown> | undefined> {
    for (const deadline = Date.now() + timeoutMs; ; ) {
      for (const line of this.lines) {
        const message = JSON.parse(line) as Record<string, unknown>;
        if (wanted(message)) return message;
      }
      if (Date.now() > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Opens an initialize-era session: `initialize` as request `id`, then `notifications/initialized`. */
  async initialize(id: string | number, protocolVersion: string, clientName: string): Promise<string> {
    const answer = await this.line(id, 'initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: clientName, version: '1' },
    });
    this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return answer;
  }

  /** The answer to request `id`, parsed. */
  async request(id: number, method: string, params: Record<string, unknown>): Promise<unknown> {
    return JSON.parse(await this.line(id, method, params));
  }

  close(): Promise<unknown> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin?.end();
    return exited;
  }
}
