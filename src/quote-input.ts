import { cutEnd } from './clip-text.js';

/**
 * Characters of a value from a request (a tool or prompt name, a URI, a task id, a cursor, an
 * argument's name) that a message quotes; the rest is cut. A request may carry megabytes (4 MiB
 * over HTTP, 10 MiB a line over stdio): an error that quoted such a value whole would send it
 * back, or write it to the log, as large as it came, once or several times over.
 */
export const QUOTED_CHARS = 100;

/**
 * `text` cut to `max` characters, with an ellipsis marker when anything was cut. A surrogate pair
 * is never split: the cut then falls one character earlier.
 *
 * @example clip('x'.repeat(500)) // 'xxx…' (100 x, then …)
 */
export function clip(text: string, max: number = QUOTED_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, cutEnd(text, max))}…`;
}

/**
 * A value from a request as a message quotes it: a string in JSON quotes (its quotes, backslashes
 * and control characters escaped), any other value as JSON, both cut by `clip` (a string before it
 * is quoted, so the quotes survive the cut).
 *
 * @example `Unknown tool: ${quote(name)}` // 'Unknown tool: "get_usr"'
 */
export function quote(value: unknown, max: number = QUOTED_CHARS): string {
  if (typeof value === 'string') return JSON.stringify(clip(value, max));
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    // A value that was never JSON (a bigint, a cycle): only what `String` makes of it.
  }
  return clip(json ?? String(value), max);
}
