// A client that writes requests without reading the answers: the bridge stops reading requests
// while 16 MiB of answers wait to be read, instead of queueing every answer in memory, and serves
// all of them once the client reads. A real bridge process on GitHub's spec (a list page ~0.6 MB).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

const GITHUB = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
const REQUESTS = 600;
const cache = mkdtempSync(join(tmpdir(), 'bridge-backpressure-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

const peakMiB = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

describe('a stdio client that does not read', () => {
  it('holds the bridge to a bounded queue of answers, all of them sent once it reads', async () => {
    const child = spawn(
      process.execPath,
      [BRIDGE_BIN, 'openapi', GITHUB, '--tools', 'all', '--base-url', 'http://127.0.0.1:9'],
      { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, BRIDGE_CACHE_DIR: cache } },
    );
    try {
      const line = (message: object) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
      let requests = line({
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      requests += line({ method: 'notifications/initialized' });
      for (let id = 1; id <= REQUESTS; id++) requests += line({ id, method: 'tools/list' });
      child.stdin.write(requests);
      // Nothing is read from stdout for a while: unbounded, the answers (~360 MB) would all queue.
      await sleep(4_000);
      expect(peakMiB(child.pid as number)).toBeLessThan(260);

      const ids = new Set<number>();
      let rest = '';
      child.stdout.setEncoding('utf8');
      for await (const chunk of child.stdout) {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop() ?? '';
        for (const answer of lines) ids.add(Number(/"id":(\d+)\}$/.exec(answer)?.[1]));
        if (ids.size === REQUESTS + 1) break;
      }
      expect(ids.size).toBe(REQUESTS + 1);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill();
    }
  }, 60_000);
});
