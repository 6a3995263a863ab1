// A lean MCP client over stdio: JSON-RPC written and read as lines by hand, so no client library's
// cost is in what the benchmarks measure. Used for the bridge and for the peer alike.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export class StdioClient {
  readonly child: ChildProcess;
  readonly #pending = new Map<number, (message: string) => void>();
  #buffer = '';
  #id = 0;

  /** Starts `node script ...args`; stderr is discarded (both servers log there). */
  constructor(script: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'ignore'], env });
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (let newline = this.#buffer.indexOf('\n'); newline >= 0; newline = this.#buffer.indexOf('\n')) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        // Both servers write the id as the last member of a response.
        const id = /"id":(\d+)\}$/.exec(line);
        const key = Number(id?.[1]);
        this.#pending.get(key)?.(line);
        this.#pending.delete(key);
      }
    });
  }

  request(method: string, params: unknown): Promise<string> {
    const id = ++this.#id;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  async initialize(): Promise<void> {
    await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'bench', version: '1' },
    });
    this.child.stdin?.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  /** Every page of tools/list: the whole list is what a client waits for. */
  async listTools(): Promise<Array<{ name: string }>> {
    const tools: Array<{ name: string }> = [];
    let cursor: string | undefined;
    do {
      const page = JSON.parse(await this.request('tools/list', cursor ? { cursor } : {})) as {
        result: { tools: Array<{ name: string }>; nextCursor?: string };
      };
      tools.push(...page.result.tools);
      cursor = page.result.nextCursor;
    } while (cursor);
    return tools;
  }

  /** Peak resident memory (VmHWM) in MiB, read before the process ends. */
  peakRssMiB(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
  }

  async close(): Promise<void> {
    this.child.stdin?.end();
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
