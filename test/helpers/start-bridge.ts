import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** The compiled command-line entry (tests run after `npm run build`). */
export const BRIDGE_BIN = fileURLToPath(new URL('../../dist/bin/bridge.js', import.meta.url));

/** A compiled script under `dist/`, e.g. `test/servers/echo-server.js`. */
export function distPath(relative: string): string {
  return fileURLToPath(new URL(`../../dist/${relative}`, import.meta.url));
}

/** How a client reaches the server under test. */
export type Wire = 'stdio' | 'http';

/** A way to start the server under test: `node <script> <args>` (stdio) or with `--http 127.0.0.1:0`. */
export interface ServerCommand {
  script: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** A server process started for HTTP, with its endpoint URL. */
export interface HttpBridge extends AsyncDisposable {
  url: URL;
  child: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
}

/** Starts `command` with `--http 127.0.0.1:0` and resolves once it listens. */
export async function startHttpBridge(command: ServerCommand): Promise<HttpBridge> {
  const child = spawn(process.execPath, [command.script, ...command.args, '--http', '127.0.0.1:0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...command.env },
    ...(command.cwd ? { cwd: command.cwd } : {}),
  });
  let stderr = '';
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 20 s:\n${stderr}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening (?:on )?(http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(new URL(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${stderr}`));
    });
  });
  return {
    url,
    child,
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await once(child, 'exit');
      clearTimeout(timer);
    },
  };
}
