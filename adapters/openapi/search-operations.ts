import type { OperationTool } from './operations-to-tools.js';

/**
 * The most distinct words of a query that a search uses; later ones are ignored (and the result
 * says so). A search costs about its words times the operations they hit, so a query of a
 * thousand words must not hold the event loop that every other caller shares.
 */
export const MAX_QUERY_TERMS = 32;

/** The longest query `search_operations` accepts, in characters (its input schema's `maxLength`). */
export const MAX_QUERY_LENGTH = 1_000;

// Where an operation's words come from, and what a hit in each is worth.
const FIELDS: ReadonlyArray<{ of: (tool: OperationTool) => string; weight: number }> = [
  { of: (tool) => tool.name, weight: 3 },
  { of: (tool) => tool.operation.summary ?? '', weight: 2 },
  { of: (tool) => tool.operation.tags.join(' '), weight: 2 },
  { of: (tool) => tool.operation.path, weight: 1.5 },
  { of: (tool) => tool.operation.description ?? '', weight: 0.5 },
];

/**
 * The words of every operation, inverted: for each word, the fields (operation × field, one number)
 * that hold it, and the words sorted so that those starting with a term are one binary search away.
 */
export interface OperationIndex {
  tools: readonly OperationTool[];
  /** Lower-cased tool name → operation positions: a query that is exactly a name ranks it first. */
  names: Map<string, number[]>;
  postings: Map<string, number[]>;
  vocabulary: string[];
}

export interface SearchResult {
  tools: OperationTool[];
  /** Distinct words of the query left out because of `MAX_QUERY_TERMS`. */
  ignoredWords: number;
}

/** Indexes `tools` once; every search then costs what its terms hit, not terms × operations. */
export function indexOperations(tools: readonly OperationTool[]): OperationIndex {
  const names = new Map<string, number[]>();
  const postings = new Map<string, number[]>();
  tools.forEach((tool, position) => {
    const name = tool.name.toLowerCase();
    const named = names.get(name);
    if (named) named.push(position);
    else names.set(name, [position]);
    FIELDS.forEach((field, fieldIndex) => {
      const slot = position * FIELDS.length + fieldIndex;
      for (const word of words(field.of(tool))) {
        const list = postings.get(word);
        if (list) list.push(slot);
        else postings.set(word, [slot]);
      }
    });
  });
  return { tools, names, postings, vocabulary: [...postings.keys()].sort() };
}

/**
 * Operations ranked for `query`, best first: each term scores a field's weight where the field has
 * the word, half of it where the field only has a word starting with the term (4+ characters).
 */
export function searchOperations(index: OperationIndex, query: string, limit: number): SearchResult {
  const { terms, ignoredWords } = queryTerms(query);
  const scores = new Float64Array(index.tools.length);
  for (const position of index.names.get(query.trim().toLowerCase()) ?? []) scores[position] = 100;
  // Which fields this term already scored in, so that a field counts once per term.
  const seen = new Set<number>();
  const hit = (slot: number, share: number) => {
    if (seen.has(slot)) return;
    seen.add(slot);
    const fieldIndex = slot % FIELDS.length;
    const position = (slot - fieldIndex) / FIELDS.length;
    scores[position]! += FIELDS[fieldIndex]!.weight * share;
  };
  for (const term of terms) {
    seen.clear();
    for (const slot of index.postings.get(term) ?? []) hit(slot, 1);
    if (term.length < 4) continue;
    for (let i = lowerBound(index.vocabulary, term); i < index.vocabulary.length; i++) {
      const word = index.vocabulary[i]!;
      if (!word.startsWith(term)) break;
      for (const slot of index.postings.get(word)!) hit(slot, 0.5);
    }
  }
  const scored: Array<{ tool: OperationTool; score: number }> = [];
  scores.forEach((score, position) => {
    if (score > 0) scored.push({ tool: index.tools[position]!, score });
  });
  scored.sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : 1));
  return { tools: scored.slice(0, limit).map((entry) => entry.tool), ignoredWords };
}

// The terms of a query: its first MAX_QUERY_TERMS distinct words, each with its naive singular.
function queryTerms(query: string): { terms: Set<string>; ignoredWords: number } {
  const distinct = new Set(rawWords(query));
  const terms = new Set<string>();
  let used = 0;
  for (const word of distinct) {
    if (used === MAX_QUERY_TERMS) break;
    used++;
    addWord(terms, word);
  }
  return { terms, ignoredWords: distinct.size - used };
}

/** Lower-case words, camelCase split, with a naive singular so "pulls" finds "pull". */
function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of rawWords(text)) addWord(out, word);
  return out;
}

function rawWords(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length >= 2);
}

function addWord(out: Set<string>, word: string): void {
  out.add(word);
  if (word.length > 3 && word.endsWith('s')) out.add(word.slice(0, -1));
}

// The first position whose word is not below `term`.
function lowerBound(sorted: readonly string[], term: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < term) low = middle + 1;
    else high = middle;
  }
  return low;
}
