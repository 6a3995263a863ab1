import type { McpRequestContext, Server } from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { StdioLineTransport } from './stdio-line-transport.js';

/**
 * Serves MCP on this process's stdin/stdout, both eras (the first message decides). Resolves
 * `closed` when the client closes stdin.
 */
export function serveStdio(
  factory: (context: McpRequestContext) => Server | Promise<Server>,
  onerror: (error: Error) => void,
) {
  // The SDK pins one instance per connection without exposing it; the last one the factory made is
  // the pinned one (a discarded probe comes first), and change notifications must go through it.
  let pinned: Server | undefined;
  const pin = async (context: McpRequestContext) => {
    pinned = await factory(context);
    return pinned;
  };
  const handle = sdkServeStdio(pin, { onerror, transport: new StdioLineTransport() });
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  return {
    closed,
    close: () => handle.close(),
    /** Sends `notifications/tools/list_changed` (on a 2026-07-28 connection: to its subscriptions). */
    notifyToolsChanged: () => void pinned?.sendToolListChanged().catch(() => {}),
  };
}
