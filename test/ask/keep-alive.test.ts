import { describe, expect, it } from 'vitest';
import { connect, MATRIX } from '../helpers/connect.js';
import { distPath } from '../helpers/start-bridge.js';

// The keep-alive interval is injected (100 ms here, 10 s by default) so the test stays short.
const askServer = { script: distPath('test/servers/ask-server.js'), args: [], env: { KEEPALIVE_MS: '100' } };

describe.each(MATRIX)('progress keep-alive, $kind client over $wire', ({ kind, wire }) => {
  it('keeps a silent call alive with increasing progress that says how long it has run', async () => {
    await using client = await connect(kind, wire, askServer);
    const seen: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool('quiet', { ms: 700 }, { onprogress: (p) => seen.push(p as never) });
    expect(result.content[0]?.text).toBe('done');
    expect(seen[0]).toMatchObject({ progress: 5, message: '5 lines of output so far' });
    const keepAlives = seen.slice(1);
    expect(keepAlives.length).toBeGreaterThanOrEqual(3);
    for (const [index, update] of keepAlives.entries()) {
      expect(update.progress).toBe(6 + index);
      expect(update.message).toMatch(/^Still running after \d+ s; 5 lines of output so far$/);
    }
  });

  it('stops with the result', async () => {
    await using client = await connect(kind, wire, askServer);
    let count = 0;
    const result = await client.callTool('quiet', { ms: 350 }, { onprogress: () => count++ });
    expect(result.content[0]?.text).toBe('done');
    const atResult = count;
    expect(atResult).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(count).toBe(atResult);
  });
});
