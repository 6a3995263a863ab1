import stripAnsi from 'strip-ansi';
import {
  type ContentBlock,
  type JsonSchema,
  pageOutput,
  type ToolContext,
  type ToolResult,
} from '../../src/index.js';
import type { RunOutcome } from './run-command.js';

/** The `outputSchema` of every CLI tool: what `structuredContent` holds. */
export const OUTPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    exitCode: { type: ['integer', 'null'] },
    signal: { type: ['string', 'null'] },
    stdout: { type: 'string', description: 'First page when paged' },
    stderr: { type: 'string', description: 'First page when paged' },
    truncated: { type: 'boolean', description: 'Paged or stopped at the size cap' },
    durationMs: { type: 'number' },
  },
  required: ['exitCode', 'signal', 'stdout', 'stderr', 'truncated', 'durationMs'],
};

/** What the result needs to know besides the outcome. */
export interface ResultContext {
  /** `git log`, for page names and messages. */
  label: string;
  pageSize: number;
  timeoutMs: number;
  context: Pick<ToolContext, 'resources' | 'caller'>;
}

/**
 * Turns a finished process into a tool result: exit code 0 is a result, anything else (non-zero,
 * a signal, a timeout or a cancellation, whatever the exit code) is `isError` with a sentence saying what happened. Text is decoded as
 * UTF-8 with ANSI sequences removed (and any stray ESC shown as ␛), so no escape byte reaches the
 * model; output longer than a page is paged into resources; binary stdout becomes a blob.
 */
export async function commandToResult(outcome: RunOutcome, options: ResultContext): Promise<ToolResult> {
  const content: ContentBlock[] = [];
  const structured = {
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    stdout: '',
    stderr: '',
    truncated: outcome.truncated,
    durationMs: outcome.durationMs,
  };
  const stdoutText = decodeText(outcome.stdout);
  if (stdoutText === undefined) {
    content.push(await binaryBlock(outcome.stdout, options));
    structured.stdout = `[${outcome.stdout.byteLength} bytes of binary output, returned as a resource]`;
  } else if (stdoutText !== '') {
    const paged = await pageOutput(clean(stdoutText), {
      store: options.context.resources,
      caller: options.context.caller,
      pageSize: options.pageSize,
      label: `${options.label} stdout`,
    });
    content.push({ type: 'text', text: paged.firstPage }, ...paged.links);
    structured.stdout = paged.firstPage;
    structured.truncated ||= paged.truncated;
  }
  const stderrText = clean(decodeText(outcome.stderr) ?? new TextDecoder().decode(outcome.stderr));
  if (stderrText !== '') {
    const paged = await pageOutput(stderrText, {
      store: options.context.resources,
      caller: options.context.caller,
      pageSize: options.pageSize,
      label: `${options.label} stderr`,
    });
    content.push({ type: 'text', text: `stderr:\n${paged.firstPage}` }, ...paged.links);
    structured.stderr = paged.firstPage;
    structured.truncated ||= paged.truncated;
  }
  // A timed-out or cancelled command failed even if it trapped SIGTERM and exited 0: its work is unfinished.
  const failed = outcome.exitCode !== 0 || outcome.signal !== null || outcome.timedOut || outcome.aborted;
  const status = statusLine(outcome, options);
  if (failed || content.length === 0) content.push({ type: 'text', text: status });
  if (outcome.truncated) {
    content.push({ type: 'text', text: `[output stopped at the size cap: the process was ended early]` });
  }
  return failed
    ? { content, structuredContent: structured, isError: true }
    : { content, structuredContent: structured };
}

function statusLine(outcome: RunOutcome, options: ResultContext): string {
  if (outcome.spawnError) return `${options.label} could not start: ${outcome.spawnError}`;
  if (outcome.timedOut) {
    return `${options.label} timed out after ${options.timeoutMs} ms; it was killed with its child processes (${outcome.signal ?? 'SIGTERM'}).`;
  }
  if (outcome.aborted) return `${options.label} was cancelled; it was killed with its child processes.`;
  if (outcome.signal) return `${options.label} was killed by ${outcome.signal}.`;
  if (outcome.exitCode === 0) return `${options.label} finished with exit code 0 and no output.`;
  return `${options.label} failed with exit code ${outcome.exitCode}.`;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 text, or undefined when the bytes are binary (invalid UTF-8, or NUL bytes). */
function decodeText(bytes: Uint8Array): string | undefined {
  if (bytes.byteLength === 0) return '';
  if (bytes.includes(0)) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

function clean(text: string): string {
  const stripped = stripAnsi(text);
  return stripped.includes('\u001b') ? stripped.replaceAll('\u001b', '\u241b') : stripped;
}

const MAX_INLINE_BLOB = 256 * 1024;

async function binaryBlock(bytes: Uint8Array, options: ResultContext): Promise<ContentBlock> {
  const stored = await options.context.resources.put(
    { name: `${options.label} stdout (binary)`, mimeType: 'application/octet-stream', bytes },
    options.context.caller,
  );
  if (bytes.byteLength <= MAX_INLINE_BLOB) {
    return {
      type: 'resource',
      resource: { uri: stored.uri, mimeType: stored.mimeType, blob: Buffer.from(bytes).toString('base64') },
    };
  }
  return {
    type: 'resource_link',
    uri: stored.uri,
    name: stored.name,
    mimeType: stored.mimeType,
    size: stored.size,
  };
}
