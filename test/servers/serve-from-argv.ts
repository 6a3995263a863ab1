import { parseListenAddress, type RunningBridge, type ServeOptions, serve } from '../../src/embed.js';
import { createStderrLogger } from '../../src/index.js';

/**
 * Runs a test server the way the tests start one: stdio, or Streamable HTTP with `--http ADDR`
 * (announcing `listening URL` on stderr), sharing its stores with `--store URL` and named
 * `--instance NAME` behind a load balancer; SIGTERM and SIGINT close it. Resolves once it is serving.
 */
export async function serveFromArgv(
  options: Omit<ServeOptions, 'transport' | 'log'>,
): Promise<RunningBridge> {
  const flag = (name: string) => {
    const at = process.argv.indexOf(name);
    return at >= 0 ? process.argv[at + 1] : undefined;
  };
  const http = flag('--http');
  const store = flag('--store');
  const instance = flag('--instance');
  const bridge = await serve({
    ...options,
    ...(store ? { store } : {}),
    log: createStderrLogger('warning'),
    transport: http
      ? { kind: 'http', address: parseListenAddress(http), ...(instance ? { instance } : {}) }
      : { kind: 'stdio' },
  });
  if (bridge.url) process.stderr.write(`listening ${bridge.url}\n`);
  process.once('SIGTERM', () => void bridge.close());
  process.once('SIGINT', () => void bridge.close());
  return bridge;
}

/** Whether the compiled `script` (e.g. `echo-server.js`) is the process's entry point. */
export function isEntryPoint(script: string): boolean {
  return process.argv[1]?.endsWith(script) ?? false;
}
