// Sign-ins waiting for their browsers are bounded per quota key: one anonymous client's sessions
// (each its own caller, all counted by their address) cannot fill the table that every user's
// sign-in needs. In-process: the sign-ins wait on a client that never opens the URL.
import { describe, expect, it } from 'vitest';
import {
  MemoryResourceStore,
  SignInCallbacks,
  silentLogger,
  type ToolContext,
  UpstreamSignIn,
} from '../../src/index.js';

const callbacks = new SignInCallbacks();
callbacks.useHttpServer('http://127.0.0.1:9/mcp');

function signIn() {
  return new UpstreamSignIn({
    label: 'test API',
    audience: 'http://127.0.0.1:9',
    authorizationUrl: 'http://127.0.0.1:9/authorize',
    tokenUrl: 'http://127.0.0.1:9/token',
    clientId: 'bridge',
    scopes: [],
    timeoutMs: 1_000,
  });
}

/** A call of `caller` (counted against `quotaKey`) whose client is asked to open a URL and never does. */
function waitingContext(caller: string, quotaKey: string, signal: AbortSignal): ToolContext {
  return {
    caller,
    quotaKey,
    signal,
    log: silentLogger,
    progress: () => {},
    resources: new MemoryResourceStore(),
    signIn: callbacks,
    ask: {
      can: () => true,
      elicitUrl: () => new Promise(() => {}),
      urlCompleted: async () => {},
    },
  } as unknown as ToolContext;
}

describe('sign-ins waiting for their browsers', () => {
  it("are capped at 16 per quota key; another key's sign-in still starts", async () => {
    const upstream = signIn();
    const controller = new AbortController();
    const settled: string[] = [];
    const start = (caller: string, key: string) =>
      upstream.accessToken(waitingContext(caller, key, controller.signal)).catch((error: Error) => {
        settled.push(`${caller}: ${error.message}`);
      });
    for (let i = 0; i < 16; i++) void start(`session:${i}`, 'address:10.0.0.1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toEqual([]);

    await start('session:16', 'address:10.0.0.1');
    expect(settled).toEqual([
      'session:16: Signing in to test API is refused for now: 16 sign-ins of this client (all sessions from its address) are waiting for their browsers. Finish or cancel one, or call again in a few minutes; nothing was sent upstream.',
    ]);

    void start('session:other', 'address:10.0.0.2');
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toHaveLength(1);
    controller.abort();
  });
});
