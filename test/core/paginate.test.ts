// The paging every list shares (tools, prompts, resources): a cursor is read only by the list
// version it was issued for. The whole product is exercised across a reload in list-cursor.test.ts;
// here, the lists whose changes no reload announces (prompts, a caller's stored outputs) and the
// cursors a client might garble.
import { ProtocolError } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/registry.js';
import { listPage, listVersion, PAGE_SIZE, prefixVersions, toolsVersion } from '../../src/server/paginate.js';
import type { ToolDefinition } from '../../src/tool.js';

const uris = (count: number, from = 0) =>
  Array.from({ length: count }, (_, n) => ({ uri: `bridge://output/${from + n}` }));
const pageOf = (list: Array<{ uri: string }>, cursor?: string) =>
  listPage(
    'resources',
    list,
    cursor,
    prefixVersions(() => list.map((entry) => entry.uri)),
  );

function refusal(run: () => unknown): ProtocolError {
  try {
    run();
  } catch (error) {
    if (error instanceof ProtocolError) return error;
    throw error;
  }
  throw new Error('the cursor was accepted');
}

describe('list cursors', () => {
  it('pages a list through, and no page when it fits in one', () => {
    const list = uris(PAGE_SIZE * 2 + 1);
    const first = pageOf(list);
    const second = pageOf(list, first.nextCursor);
    const third = pageOf(list, second.nextCursor);
    expect([first, second, third].flatMap((page) => page.resources)).toEqual(list);
    expect(third).not.toHaveProperty('nextCursor');
    expect(pageOf(uris(PAGE_SIZE))).not.toHaveProperty('nextCursor');
  });

  it('takes a cursor while the entries its client has seen stand, whatever follows them', () => {
    const list = uris(PAGE_SIZE + 10);
    const { nextCursor } = pageOf(list);
    // Added after the first page, removed from the second, changed there: the rest is what follows.
    for (const changed of [
      [...list, ...uris(3, 9_000)],
      list.slice(0, PAGE_SIZE + 2),
      [...list.slice(0, PAGE_SIZE), ...uris(4, 8_000)],
    ]) {
      expect(pageOf(changed, nextCursor).resources).toEqual(changed.slice(PAGE_SIZE));
    }
  });

  it('refuses a cursor once an entry its client has seen changed: gone, added before it, or the list shorter', () => {
    const list = uris(PAGE_SIZE + 10);
    const { nextCursor } = pageOf(list);
    const renamed = [...list];
    renamed[7] = { uri: 'bridge://output/other' };
    for (const changed of [
      list.slice(1),
      [...uris(1, 9_999), ...list],
      renamed,
      list.slice(0, PAGE_SIZE - 1),
    ]) {
      const error = refusal(() => pageOf(changed, nextCursor));
      expect(error.code).toBe(-32602);
      expect(error.message).toBe(
        'The cursor is from an earlier resources list: the resources have changed since it was issued. List again from the start, without a cursor.',
      );
    }
  });

  it('gives the same tools loaded again the same version, as another process would', () => {
    const tool = (name: string): ToolDefinition => ({
      name,
      description: name,
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      invoke: async () => ({ content: [] }),
    });
    const load = () => new ToolRegistry([{ source: 's', tools: ['b', 'a', 'c'].map(tool) }]);
    expect(toolsVersion(load(), 3)).toBe(toolsVersion(load(), 3));
    expect(toolsVersion(load(), 3)).toBe(listVersion(['a', 'b', 'c']));
    expect(toolsVersion(load(), 2)).toBe(listVersion(['a', 'b']));
    expect(listVersion(['a', 'b', 'c'])).not.toBe(listVersion(['a', 'c', 'b']));
    // Keys are kept apart: joined differently, the same characters are another list.
    expect(listVersion(['ab', 'c'])).not.toBe(listVersion(['a', 'bc']));
  });

  it('refuses a cursor it did not issue, showing at most its start', () => {
    const list = uris(PAGE_SIZE + 10);
    const cursor = pageOf(list).nextCursor as string;
    const forged = [
      '!!',
      '',
      Buffer.from('500').toString('base64url'), // a bare offset: the cursor of earlier versions
      `${cursor}=`,
      `${cursor}!`,
      ` ${cursor}`,
      'A'.repeat(10_000),
    ];
    for (const bad of forged) {
      const error = refusal(() => pageOf(list, bad));
      expect(error.code, bad).toBe(-32602);
      expect(error.message, bad).toMatch(
        /^Invalid cursor ".{0,101}": not one this server issued for resources\/list\. Send back a nextCursor exactly as received, or list from the start without a cursor\.$/,
      );
    }
  });
});
