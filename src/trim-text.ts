import { cutEnd } from './clip-text.js';

/** Longest tool description: summary, description and notes together (~150 tokens). */
export const TOOL_DESCRIPTION_BUDGET = 600;
/** Longest description of a parameter, a request body or a schema property. */
export const PROPERTY_DESCRIPTION_BUDGET = 200;
/** Longest tool title. */
export const TITLE_BUDGET = 120;

// A sentence that only points at documentation ("For more information, see "Using pagination in the
// REST API.""): its link is dropped below, so what is left tells a model nothing it can act on.
// These patterns stay linear in the text (a spec's descriptions can be made to make a start spin):
// a match starts only where a run of blanks does, not at each blank of it; a sentence is looked for
// within a bounded length; a link's words hold no `[`. Runs of blanks or `[`, or unended "For more
// information", were quadratic (minutes for a 200 kB description).
const POINTER =
  /(?<![ \t])[ \t]*For more (?:information|details)\b[^\n]{0,500}?(?:\.["\u201d]?|["\u201d]\.)(?=\s|$)/g;
const LINK = /\[([^[\]]+)\]\((?:https?:\/\/|\/)[^)\s]*\)/g;

/**
 * `text` within `budget` characters, cut with `...`. Markdown links keep their words and lose their URLs: API
 * docs link every other phrase, and the URLs cost tokens without helping a model call the API.
 * Sentences that only refer the reader to other documentation are left out for the same reason.
 * Empty when nothing is left.
 */
export function trimText(text: string, budget: number): string {
  const links = text.includes('](');
  const pointers = text.includes('For more ');
  const typographic = TYPOGRAPHIC.test(text);
  if (text.length <= budget && !links && !pointers && !typographic) return text.trim();
  let clean = typographic ? text.replace(TYPOGRAPHIC_ALL, (char) => PLAIN[char] ?? char) : text;
  if (links) clean = clean.replace(LINK, '$1');
  // Only where a sentence was taken out: the blank lines and spaces it left behind.
  if (pointers)
    clean = clean
      .replace(POINTER, '')
      .replace(/(?<![ \t])[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n');
  clean = clean.trim();
  return clean.length <= budget ? clean : cut(clean, budget);
}

// Within `budget` with the cut marked `...`: after the last whole sentence that fits, when that
// keeps at least half the budget (a model reads whole statements, not one broken off mid-way, and
// the fragment was spending the budget); else at the budget, mid-sentence (never mid-pair).
function cut(text: string, budget: number): string {
  const room = budget - ' ...'.length;
  for (let end = room - 1; end >= budget / 2; end--) {
    const char = text.charCodeAt(end);
    // `.`, `!` or `?` before a blank or line end: a sentence ends there.
    if ((char === 46 || char === 33 || char === 63) && /\s/.test(text[end + 1] ?? '')) {
      return `${text.slice(0, end + 1)} ...`;
    }
  }
  return `${text.slice(0, cutEnd(text, budget - 3)).trimEnd()}...`;
}

// Typographic punctuation as its ASCII equivalent (and the cut marked `...`, not `…`). The words
// are the same to a model, and a tools/list with no character above U+00FF stays a one-byte string
// in V8 from the cache's parse to the pipe: a single `…` or `’` makes the whole 2 MB answer a
// two-byte string (twice the memory, slower to serialize and to encode as UTF-8). GitHub's list
// had 249 such characters, 227 of them cut marks.
const PLAIN: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u2013': '-',
  '\u2014': '-',
  '\u2026': '...',
  '\u2022': '-',
  '\u2212': '-',
  '\u00a0': ' ',
  '\u2009': ' ',
  '\u200b': '',
};
const TYPOGRAPHIC = /[\u2018\u2019\u201a\u201c\u201d\u201e\u2013\u2014\u2026\u2022\u2212\u00a0\u2009\u200b]/;
const TYPOGRAPHIC_ALL = new RegExp(TYPOGRAPHIC.source, 'g');

/** A parameter's, body's or property's description within its budget; undefined when nothing is left. */
export function propertyDescription(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  return trimText(text, PROPERTY_DESCRIPTION_BUDGET) || undefined;
}
