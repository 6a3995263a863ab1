import { mebibytes } from '../count-of.js';
import { type ToolResult, textResult } from '../tool.js';

/** Bytes one task result may take when held (its JSON), by default: 4 MiB. */
export const MAX_RESULT_BYTES = 4 * 1024 * 1024;
/** Bytes of results one quota key's finished tasks may hold at once, by default: 16 MiB. */
export const MAX_RESULT_BYTES_PER_CALLER = 16 * 1024 * 1024;

/** How many bytes `result` takes as it is held and sent: its JSON, UTF-8. */
export function resultBytes(result: ToolResult): number {
  return Buffer.byteLength(JSON.stringify(result));
}

/**
 * The `isError` result a task keeps instead of one too large to hold: it says how large the result
 * was, which limit it passed, and what the caller can do, so the model can call again differently.
 */
export function resultNotKept(bytes: number, limit: string): ToolResult {
  return textResult(
    `The task's result was not kept: it was ${bytes} bytes (${mebibytes(bytes)}), and ${limit}. ` +
      'Call the tool again asking for less (a narrower query, a smaller page), or without a task.',
    true,
  );
}
