import { UNSEEN } from '../../src/index.js';

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;
const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\u001b': '\\E' };

/**
 * A word of a command line as a shell would take it back, for display only (a command never goes
 * through a shell): bare when plain, else in single quotes; a word holding characters a terminal
 * or a dialog does not show as themselves (a newline, an escape, U+202E; see `UNSEEN`) in bash's
 * ANSI-C quotes, each such character escaped, so that an argument cannot start a line of the
 * confirmation text, move the cursor, or reorder what follows.
 *
 * @example shellQuote("a\nb") // "$'a\\nb'"
 */
export function shellQuote(word: string): string {
  if (PLAIN.test(word)) return word;
  if (!UNSEEN.test(word)) return `'${word.replace(/'/g, `'\\''`)}'`;
  return `$'${Array.from(word, escapeInAnsiC).join('')}'`;
}

function escapeInAnsiC(char: string): string {
  if (char === '\\' || char === "'") return `\\${char}`;
  if (!UNSEEN.test(char)) return char;
  const named = NAMED[char];
  if (named) return named;
  // Fixed widths: bash reads at most 2, 4 and 8 hex digits, so a digit after one is not taken in.
  const code = char.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\U${code.toString(16).padStart(8, '0')}`;
}
