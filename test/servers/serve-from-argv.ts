import {
  createStderrLogger,
  parseListenAddress,
  type RunningBridge,
  type ServeOptions,
  serve,
} from '../../src/index.js';

/**
 * Runs a test server the way the tests start one: stdio, or Streamable HTTP with `--http ADDR`
 * (announcing `listening URL` on stderr); SIGTERM and SIGINT close it. Resolves once it is serving.
 */
export async function serveFromArgv(
  options: Omit<ServeOptions, 'transport' | 'log'>,
): Promise<RunningBridge> {
  const httpFlag = process.argv.indexOf('--http');
  const http = httpFlag >= 0 ? process.argv[httpFlag + 1] : undefined;
  const bridge = await serve({
    ...options,
    log: createStderrLogger('warning'),
    transport: http ? { kind: 'http', address: parseListenAddress(http) } : { kind: 'stdio' },
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
