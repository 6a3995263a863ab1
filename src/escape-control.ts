// C0 controls but tab, DEL, C1 controls, the Unicode line and paragraph separators, and the
// bidirectional controls (marks, embeddings, overrides, isolates): a right-to-left override in a
// spec's path would show the rest of a log line, or of an inspect row, in another order than it
// is written ("Trojan Source").
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r' };

/**
 * `text` with its control characters written out (`\n`, `\r`, `\x1b`, `\x9b`, `\u2028`), for text
 * that goes to a terminal or a line-oriented log. Messages carry text the bridge does not control
 * (a spec's paths and summaries, a CLI's help, a caller's arguments): a newline in one must not
 * start a line that looks like the bridge's own, nor an escape sequence recolour or rewrite the
 * terminal. An escape sequence is left as printable text (`\x1b[31m`). Tabs stay.
 *
 * @example escapeControl('/x\nbridge info: ok') // '/x\\nbridge info: ok'
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (char) => NAMED[char] ?? codeOf(char));
}

function codeOf(char: string): string {
  const code = char.charCodeAt(0);
  return code > 0xff ? `\\u${code.toString(16)}` : `\\x${code.toString(16).padStart(2, '0')}`;
}

/**
 * A paragraph of lines (an error report: a config file's problems, one a line) with its control
 * characters but newlines written out as `escapeControl` does, and every line after the first
 * that does not already start with a space indented by two: a newline from a spec or a help text
 * can break the paragraph, but not start a line that passes for one of the bridge's own.
 */
export function escapeParagraph(text: string): string {
  return text
    .split('\n')
    .map((line, index) => {
      const shown = escapeControl(line);
      return index === 0 || /^\s/.test(shown) ? shown : `  ${shown}`;
    })
    .join('\n');
}

// What JSON.stringify leaves raw that a terminal may still act on (it escapes C0 itself).
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * `value` as indented JSON for a terminal: the same document, with DEL, C1 and bidirectional
 * controls as `\u` escapes.
 */
export function jsonForTerminal(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    RAW_IN_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
