// A task holds its result for its TTL, so what results hold is bounded: one result past 4 MiB, or a
// client's results past 16 MiB, are kept as an isError result saying so, never as the bytes.
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectV1 } from './helpers.js';

const MIB = 1024 * 1024;

describe('bytes of task results held (2025-11-25 over HTTP)', () => {
  it('keeps a result over 4 MiB, or past the client’s 16 MiB, as an error saying how large it was', async () => {
    await using client = await connectV1('http');
    const runTask = async (mib: number) => {
      const created = await client.v1.request(
        { method: 'tools/call', params: { name: 'blob', arguments: { mib }, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      );
      return client.v1.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    };
    const size = (result: { structuredContent?: unknown }) =>
      JSON.stringify(result.structuredContent ?? {}).length;

    const tooLarge = await runTask(5);
    expect(tooLarge.isError).toBe(true);
    expect(tooLarge.structuredContent).toBeUndefined();
    expect(JSON.stringify(tooLarge.content)).toMatch(
      /it was 52\d{5} bytes \(5 MiB\), and one task result may take 4 MiB/,
    );

    // 3.5 MiB each: four fit the client's 16 MiB, the fifth does not; the four are still whole.
    const kept = [];
    for (let i = 0; i < 4; i++) kept.push(await runTask(3.5));
    for (const result of kept) {
      expect(result.isError).toBeFalsy();
      expect(size(result)).toBeGreaterThan(3.5 * MIB);
    }
    const overBudget = await runTask(3.5);
    expect(overBudget.isError).toBe(true);
    expect(JSON.stringify(overBudget.content)).toMatch(
      /already hold 14 MiB of results, of the 16 MiB one client may hold/,
    );

    // A plain call is not held, so it still gets the whole answer.
    const plain = await client.v1.callTool({ name: 'blob', arguments: { mib: 5 } });
    expect(size(plain as { structuredContent?: unknown })).toBeGreaterThan(5 * MIB);
  });
});
