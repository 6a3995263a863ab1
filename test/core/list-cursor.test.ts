// A tools/list cursor names a place in one tool list. A reload of `bridge serve` that changes the
// list must not let a client page on with a cursor from before: the rest of the old list is gone,
// and an offset into the new one would skip or repeat tools without a word. Such a cursor, and one
// the server never issued, are refused with -32602 on every transport and in both eras, whether
// the SDK's handler or a direct lane would have answered the request; a fresh list pages through.
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CONFIG_BIN, onToolsChanged, tempDir, writeYaml } from '../config/helpers.js';
import { connect, MATRIX, type TestClient } from '../helpers/connect.js';

// More tools than one page (500) holds.
const tools = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, n) => ({
    name: `${prefix}${String(n).padStart(4, '0')}`,
    description: `Tool ${n}.`,
  }));

interface Page {
  tools: Array<{ name: string }>;
  nextCursor?: string;
}

// One page, asked with a request of the client's own (its listTools walks every page itself).
async function page(client: TestClient, params: Record<string, unknown> = {}): Promise<Page> {
  const request = { method: 'tools/list' as const, params };
  return client.kind === 'v1'
    ? await (client.raw as ClientV1).request(request, ListToolsResultSchema)
    : ((await (client.raw as ClientV2).request(request)) as Page);
}

async function refusal(client: TestClient, params: Record<string, unknown>) {
  const error = await page(client, params).then(
    // Kept short: the page an accepted cursor got, by its first tool.
    (answer) => ({ answered: answer.tools[0]?.name, tools: answer.tools.length }),
    (failure: { code?: number; message?: string }) => failure,
  );
  expect(error).toMatchObject({ code: -32602 });
  return (error as { message: string }).message;
}

// A plain request, which a direct lane answers where there is one, and one with an extra `_meta`
// key, which the SDK's handler answers (at least the first time: a lane takes only requests whose
// every member it knows). A lane leaves every cursor it refuses to the SDK, which says why.
const paths = [
  ['plain', {}],
  ['with an extra _meta key', { _meta: { 'example.com/path': 'sdk' } }],
] as const;

describe.each(MATRIX)('tools/list cursors across a reload, $kind client over $wire', ({ kind, wire }) => {
  it('refuses a cursor from before the reload and one it never issued; a fresh list pages through', async () => {
    await using dir = await tempDir();
    await writeYaml(dir.file('tools.yaml'), tools('t', 600));
    await writeYaml(dir.file('bridge.config.yaml'), {
      sources: [{ kind: 'fixture', options: { file: 'tools.yaml' } }],
    });
    await using client = await connect(kind, wire, {
      script: CONFIG_BIN,
      args: ['serve', dir.file('bridge.config.yaml')],
    });
    const changes = await onToolsChanged(client);

    const first = await page(client);
    expect(first.tools).toHaveLength(500);
    const old = first.nextCursor as string;
    expect(old).toEqual(expect.any(String));
    // Before the reload the cursor serves, on both paths.
    for (const [, extra] of paths) {
      const second = await page(client, { cursor: old, ...extra });
      expect(second.tools.map((tool) => tool.name)).toEqual(
        tools('t', 600)
          .slice(500)
          .map(({ name }) => name),
      );
      expect(second).not.toHaveProperty('nextCursor');
    }

    // 100 tools listed before the old ones: the old cursor's offset would repeat 100 of them.
    await writeYaml(dir.file('tools.yaml'), [...tools('a', 100), ...tools('t', 600)]);
    await changes.next();
    for (const [label, extra] of paths) {
      const message = await refusal(client, { cursor: old, ...extra });
      expect(message, label).toMatch(/cursor is from an earlier tools list.*list again from the start/i);
    }

    // Cursors the server never issued: not base64url, and a bare offset (what cursors once were).
    for (const forged of ['!!', Buffer.from('500').toString('base64url'), `${old}x`]) {
      for (const [label, extra] of paths) {
        const message = await refusal(client, { cursor: forged, ...extra });
        expect(message, `${label}: ${forged}`).toMatch(/invalid cursor.*not one this server issued/i);
      }
    }

    // A fresh list: every tool once, in order.
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const next = await page(client, cursor === undefined ? {} : { cursor });
      names.push(...next.tools.map((tool) => tool.name));
      cursor = next.nextCursor;
    } while (cursor !== undefined);
    expect(names).toEqual([...tools('a', 100), ...tools('t', 600)].map(({ name }) => name));
  });
});
