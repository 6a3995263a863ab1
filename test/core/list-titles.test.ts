// Where a tool's title goes in tools/list depends on the revision the client speaks: at the top
// level since 2025-06-18 (once: no copy in the annotations), in `annotations.title` before, the
// only place such clients read it.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { distPath } from '../helpers/start-bridge.js';

async function listOver(protocolVersion: string): Promise<Array<Record<string, unknown>>> {
  const child = spawn(process.execPath, [distPath('test/servers/echo-server.js')], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  try {
    const answers = new Map<number, (message: Record<string, unknown>) => void>();
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, at)) as Record<string, unknown>;
        buffer = buffer.slice(at + 1);
        answers.get(message.id as number)?.(message);
      }
    });
    const request = (id: number, method: string, params: object) =>
      new Promise<Record<string, unknown>>((resolve) => {
        answers.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    const init = await request(1, 'initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    expect((init.result as { protocolVersion: string }).protocolVersion).toBe(protocolVersion);
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const list = await request(2, 'tools/list', {});
    return (list.result as { tools: Array<Record<string, unknown>> }).tools;
  } finally {
    child.kill();
  }
}

describe("a tool's title in tools/list", () => {
  it.each(['2025-06-18', '2025-11-25'])('%s: at the top level only', async (version) => {
    const echo = (await listOver(version)).find((tool) => tool.name === 'echo');
    expect(echo?.title).toBe('Echo');
    expect(echo?.annotations).not.toHaveProperty('title');
    expect(echo?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
  });

  it.each(['2025-03-26', '2024-11-05'])(
    '%s: in annotations.title, where such clients read it',
    async (version) => {
      const echo = (await listOver(version)).find((tool) => tool.name === 'echo');
      expect(echo).not.toHaveProperty('title');
      expect(echo?.annotations).toMatchObject({ title: 'Echo', readOnlyHint: true });
    },
  );
});
