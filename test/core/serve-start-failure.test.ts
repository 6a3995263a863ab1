import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { serve } from '../../src/serve.js';
import type { Source } from '../../src/source.js';

// A source that records whether it was released.
function trackedSource(): Source & { closed: boolean } {
  const source = {
    label: 'tracked',
    closed: false,
    load: async () => [],
    close: async () => {
      source.closed = true;
    },
  };
  return source;
}

describe('serve() when it cannot start', () => {
  it('closes the loaded sources when the HTTP port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const source = trackedSource();
      await expect(
        serve({
          sources: [source],
          transport: { kind: 'http', address: { host: '127.0.0.1', port } },
          log: silentLogger,
        }),
      ).rejects.toThrow(/EADDRINUSE/);
      expect(source.closed).toBe(true);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('refuses a bad sign-in redirect URI before loading any source, naming the option', async () => {
    let loaded = false;
    const source: Source = {
      label: 'never',
      load: async () => {
        loaded = true;
        return [];
      },
    };
    await expect(
      serve({
        sources: [source],
        transport: { kind: 'stdio' },
        log: silentLogger,
        signIn: { redirectUri: 'not a url' },
      }),
    ).rejects.toThrow('signIn.redirectUri is not a URL');
    expect(loaded).toBe(false);
  });
});
