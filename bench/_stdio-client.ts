// A lean MCP client over stdio: JSON-RPC written and read as lines by hand, so no client library's
// cost is in what the benchmarks measure. Used for the bridge and for the peer alike.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export class StdioClient {
  readonly child: ChildProcess;
  readonly #pending = new Map<number, (message: string) => void>();
  /** The start of a line whose end has not arrived yet, in the pieces it came in. */
  #parts: string[] = [];
  #id = 0;

  /** Starts `node script ...args`; stderr is discarded (both servers log there). */
  constructor(script: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'ignore'], env });
    this.child.stdout?.setEncoding('utf8');
    // Each chunk is searched for line ends once, and a line joined once when its end arrives:
    // appending to one buffer and searching it from the start for every 64 KiB chunk was quadratic
    // in an answer's size (~20 ms of this client's own time for GitHub's 1.8 MB tools/list, which
    // the start-up figures then counted as the server's).
    this.child.stdout?.on('data', (chunk: string) => {
      let start = 0;
      for (let newline = chunk.indexOf('\n'); newline >= 0; newline = chunk.indexOf('\n', start)) {
        this.#parts.push(chunk.slice(start, newline));
        const line = this.#parts.join('');
        this.#parts = [];
        start = newline + 1;
        // Both servers write the id as the last member of a response.
        const id = /"id":(\d+)\}$/.exec(line);
        const key = Number(id?.[1]);
        this.#pending.get(key)?.(line);
        this.#pending.delete(key);
      }
      if (start < chunk.length) this.#parts.push(chunk.slice(start));
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
    return toolsOf(await this.listToolPages());
  }

  /**
   * Every page of tools/list, as the lines that carried them. Each page's cursor is read from the
   * end of its line instead of parsing the page: a server's list is complete when its last byte
   * has arrived, and parsing ~1.6 MB of pages here (GitHub's, ~10 ms) would be counted as the
   * server's time. `toolsOf` parses them afterwards and checks every cursor read this way.
   */
  async listToolPages(): Promise<string[]> {
    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request('tools/list', cursor ? { cursor } : {});
      pages.push(page);
      cursor = cursorOf(page);
    } while (cursor);
    return pages;
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

// The last `"nextCursor":"…"` of a page's line: a result's own member follows its `tools`, and a
// string inside a tool cannot hold an unescaped quote. `toolsOf` checks it against the parse.
function cursorOf(line: string): string | undefined {
  const key = '"nextCursor":"';
  const at = line.lastIndexOf(key);
  if (at < 0) return undefined;
  const start = at + key.length;
  return line.slice(start, line.indexOf('"', start));
}

/** The tools of `pages` (see `listToolPages`), each page's cursor checked against its parse. */
export function toolsOf(pages: string[]): Array<{ name: string }> {
  const tools: Array<{ name: string }> = [];
  for (const line of pages) {
    const page = JSON.parse(line) as { result: { tools: Array<{ name: string }>; nextCursor?: string } };
    if (page.result.nextCursor !== cursorOf(line)) {
      throw new Error(
        `a tools/list page's cursor was misread: ${cursorOf(line)} for ${page.result.nextCursor}`,
      );
    }
    tools.push(...page.result.tools);
  }
  return tools;
}
