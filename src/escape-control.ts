/**
 * Characters a terminal or a dialog does not show as themselves: controls (Unicode category Cc:
 * C0, DEL, C1), format characters (Cf: the bidirectional marks, embeddings, overrides and isolates,
 * zero-width spaces and joiners, tag characters), the line and paragraph separators (Zl, Zp), and
 * surrogates left without their pair. A right-to-left override in a spec's path would show the
 * rest of a log line, or of an inspect row, in another order than it is written ("Trojan Source");
 * a newline or a separator starts what passes for a line of its own.
 */
export const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

// Tabs stay: they move text along its line, but start none and hide nothing.
const CONTROL = new RegExp(`(?!\t)${UNSEEN.source}`, 'gu');

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

// `\x1b` up to U+00FF, `\u202e` in the rest of the Basic Multilingual Plane, `\u{e0001}` above.
function codeOf(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
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

// What JSON.stringify leaves raw that a terminal may still act on or not show: DEL, C1, format
// characters, the separators. It escapes C0 and lone surrogates itself; the newlines that remain
// are its own indentation.
const RAW_IN_JSON = new RegExp(`(?!\n)${UNSEEN.source}`, 'gu');

/**
 * `value` as indented JSON for a terminal or a dialog: the same document, with DEL, C1, format
 * characters and the line and paragraph separators as `\u` escapes (a pair of them above the
 * Basic Multilingual Plane, as JSON spells such a character).
 */
export function jsonForTerminal(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(RAW_IN_JSON, (char) =>
    char
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
  );
}
