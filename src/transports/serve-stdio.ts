import type { McpServerFactory } from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { StdioLineTransport } from './stdio-line-transport.js';

/**
 * Serves MCP on this process's stdin/stdout, both eras (the first message decides). Resolves
 * `closed` when the client closes stdin.
 */
export function serveStdio(factory: McpServerFactory, onerror: (error: Error) => void) {
  const handle = sdkServeStdio(factory, { onerror, transport: new StdioLineTransport() });
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  return { closed, close: () => handle.close() };
}
