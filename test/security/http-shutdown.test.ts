// Class: what a client in the middle of a call sees when the server stops (SIGTERM): a JSON-RPC
// error naming the shutdown for each of its calls, never an empty answer or a cut connection.

import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { modernRequest } from '../helpers/modern-request.js';
import { startHttpBridge } from '../helpers/start-bridge.js';
import { AUTH_SERVER, connectWithHeaders } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'bridge-http-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function started(marker: string): Promise<void> {
  for (let i = 0; i < 400 && !existsSync(`${marker}.started`); i++) await sleep(25);
  if (!existsSync(`${marker}.started`)) throw new Error('the call never started');
}

describe('calls in flight at SIGTERM', () => {
  it('a raw 2026-07-28 call gets 503 with a JSON-RPC error for its id', async () => {
    const bridge = await startHttpBridge({ script: AUTH_SERVER, args: ['notes'] });
    const marker = join(dir, 'raw');
    const reply = modernRequest(
      bridge.url,
      'tools/call',
      { name: 'wait', arguments: { marker } },
      { id: 41 },
    );
    await started(marker);
    const exited = once(bridge.child, 'exit');
    bridge.child.kill('SIGTERM');
    const answer = await reply;
    await exited;
    expect(answer.status).toBe(503);
    expect(answer.json?.id).toBe(41);
    expect(answer.json?.error?.message).toMatch(/shutting down/);
    expect(bridge.child.exitCode).toBe(0);
  });

  it.each(['v1', 'v2'] as const)(
    'the %s SDK client’s pending call rejects naming the shutdown',
    async (kind) => {
      const bridge = await startHttpBridge({ script: AUTH_SERVER, args: ['notes'] });
      const client = await connectWithHeaders(kind, bridge.url);
      const marker = join(dir, kind);
      const call = client.callTool('wait', { marker }).then(
        () => 'resolved',
        (error: Error) => error.message,
      );
      await started(marker);
      const exited = once(bridge.child, 'exit');
      bridge.child.kill('SIGTERM');
      expect(await call).toMatch(/shutting down/);
      await exited;
      await client[Symbol.asyncDispose]();
    },
  );
});
