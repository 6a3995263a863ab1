import type { OperationInfo } from './list-operations.js';

// What a tool or parameter description can lose without a model losing anything it can act on:
// text about choices the bridge does not give the caller, and the API's boilerplate repeated
// across many operations. Applied to the spec's own operation and parameter descriptions, never to
// an `x-mcp` description.

/** A sentence in the descriptions of at least this many operations is the API's boilerplate. */
export const BOILERPLATE_OPERATIONS = 10;
// Shorter sentences ("Example:", "Lists repositories.") are left alone: they cost little, and a
// short one is more likely to be a real statement that happens to recur.
const MIN_SENTENCE = 30;
// Only what reads as a whole sentence (capital first, full stop last; a quote block's `> ` counts):
// a line break inside a sentence leaves pieces ("[LibSodium](…)." ending "encrypt the value with")
// that must not go on their own.
const WHOLE_SENTENCE = /^(?:> )?[A-Z][^\n]*[.!?]["\u201d]?$/;
// Repeated or not, what a call does beyond its answer (people notified) and how fast it may be
// called (rate limits) stay: a model deciding whether to make 50 such calls needs both.
const ABOUT_THE_CALL = /\bnotif|\brate.limit/i;
// What the credentials need (OAuth scopes, token permissions) is the user's to configure, never
// the model's to pass: such a sentence goes even when a scope shares a name with an argument
// (GitHub's "need the `repo` scope" beside a `repo` argument).
const ABOUT_CREDENTIALS = /\b(?:scopes?|tokens?|permissions?)\b/i;

// "This endpoint supports the following custom media types. …" and the list of media types after
// it (`- **`application/vnd.github.raw+json`**: Returns …`). The bridge sends the Accept header the
// spec's success response declares and gives the caller no way to choose another (Accept is not an
// argument), so these only describe answers the caller can never ask for.
const MEDIA_TYPES_NOTE =
  /(?:^|\n)[^\n]*\bfollowing (?:custom )?media types?\b[^\n]*(?:\n\n?[-*+] (?:\*\*)?`[\w.+-]+\/[\w.+-]+`[^\n]*)*/g;

/** Sentences as the descriptions split them: within a line, after `.`, `!` or `?` and a space. */
function sentencesOf(line: string): string[] {
  // A scan rather than `split` on a lookbehind: this runs over every line of a spec's descriptions
  // in a fresh process (GitHub's: ~30 ms with the lookbehind, before the JIT warms up).
  const sentences: string[] = [];
  let start = 0;
  BOUNDARY.lastIndex = 0;
  for (let match = BOUNDARY.exec(line); match; match = BOUNDARY.exec(line)) {
    sentences.push(line.slice(start, match.index + 1));
    start = match.index + match[0].length;
  }
  sentences.push(line.slice(start));
  return sentences;
}
const BOUNDARY = /[.!?][ \t]+/g;

/**
 * The sentences of the operations' descriptions that recur in at least `BOILERPLATE_OPERATIONS`
 * of them (GitHub's spec: token-scope notes such as "OAuth app tokens and personal access tokens
 * (classic) need the `repo` scope to use this endpoint.", plan availability, "Anyone with read
 * access to the repository can use this endpoint."; ~80 kB over its 1,223 tools). Empty for an API
 * with fewer operations than that.
 */
export function repeatedSentences(operations: readonly OperationInfo[]): Set<string> {
  const counter = sentenceCounter();
  if (operations.length < BOILERPLATE_OPERATIONS) return counter.repeated;
  for (const { description } of operations) {
    counter.nextOperation();
    if (!description) continue;
    for (const sentence of candidates(description, false)) {
      counter.add(sentence);
      const shape = credentialsShape(sentence);
      if (shape !== undefined) counter.add(shape);
    }
  }
  return counter.repeated;
}

// What the credentials need, worded the same but for the scopes or permissions named in backticks
// ("OAuth app tokens and personal access tokens (classic) need the `X` scope to use this
// endpoint.": 67 of GitHub's operations, each scope in fewer than 10): the sentence with its code
// spans as a placeholder no description holds. Undefined for any other sentence.
function credentialsShape(sentence: string): string | undefined {
  if (!sentence.includes('`') || !ABOUT_CREDENTIALS.test(sentence)) return undefined;
  return sentence.replace(CODE_SPAN, '`\0`');
}
const CODE_SPAN = /`[^`\n]*`/g;

/**
 * The sentences of parameter descriptions that recur in the parameters of at least
 * `BOILERPLATE_OPERATIONS` operations (`parametersOf` gives one operation's descriptions). Never a
 * description's first sentence (what the parameter is), nor one holding a code span: a format
 * (`YYYY-MM-DDTHH:MM:SSZ`), a value (`container`) or an argument is what a model may have to
 * write. GitHub's: "The name is not case sensitive." beside every `owner`, `org` and `repo` (47 kB
 * over 924 tools), the cursor and wildcard notes.
 */
export function repeatedParameterSentences(
  operations: readonly OperationInfo[],
  parametersOf: (operation: OperationInfo) => readonly unknown[],
): Set<string> {
  const counter = sentenceCounter();
  if (operations.length < BOILERPLATE_OPERATIONS) return counter.repeated;
  // GitHub's parameters are shared components: ~300 distinct descriptions behind ~3,500 uses.
  const byText = new Map<string, string[]>();
  for (const operation of operations) {
    counter.nextOperation();
    for (const text of parametersOf(operation)) {
      if (typeof text !== 'string') continue;
      let sentences = byText.get(text);
      if (!sentences) {
        sentences = candidates(text, true).filter((sentence) => !sentence.includes('`'));
        byText.set(text, sentences);
      }
      for (const sentence of sentences) counter.add(sentence);
    }
  }
  return counter.repeated;
}

/** Counts each sentence once per operation; `repeated` fills with those found in enough of them. */
function sentenceCounter() {
  const repeated = new Set<string>();
  const counts = new Map<string, number>();
  const seen = new Set<string>();
  return {
    repeated,
    nextOperation: () => seen.clear(),
    add(sentence: string) {
      if (seen.has(sentence)) return;
      seen.add(sentence);
      const count = (counts.get(sentence) ?? 0) + 1;
      counts.set(sentence, count);
      if (count === BOILERPLATE_OPERATIONS) repeated.add(sentence);
    },
  };
}

// The sentences of `text` that can be boilerplate: long enough, whole, and not about the call.
// With `skipFirst`, never the text's first sentence.
function candidates(text: string, skipFirst: boolean): string[] {
  const found: string[] = [];
  let first = skipFirst;
  for (const line of text.split('\n')) {
    if (line.length < MIN_SENTENCE) {
      if (first && line.trim()) first = false;
      continue;
    }
    for (const sentence of sentencesOf(line.trim())) {
      if (first) {
        first = false;
        continue;
      }
      if (sentence.length < MIN_SENTENCE) continue;
      if (!WHOLE_SENTENCE.test(sentence) || ABOUT_THE_CALL.test(sentence)) continue;
      found.push(sentence);
    }
  }
  return found;
}

/**
 * A parameter's description without the `repeated` sentences (see `repeatedParameterSentences`),
 * its first sentence always kept, so it is never left empty.
 */
export function dropRepeatedSentences(description: string, repeated: ReadonlySet<string>): string {
  if (repeated.size === 0 || ![...repeated].some((sentence) => description.includes(sentence)))
    return description;
  let first = true;
  return withoutSentences(description, (sentence) => {
    const keep = first || !repeated.has(sentence);
    if (sentence) first = false;
    return keep;
  });
}

// Advice to percent-encode a value ("The name must be URL encoded. For example, any slashes in the
// name must be replaced with `%2F`.": GitHub's `environment_name`, in 23 operations). The bridge
// encodes path, query and cookie values itself, so a model that follows it sends the value encoded
// twice (`a%252Fb`) and the API looks up another name.
const ENCODING_ADVICE = /\b(?:url|uri|percent)[- ]?encod|\breplaced? (?:with|by) `?%[0-9a-f]{2}/i;

/** What a value the bridge encodes is told instead: give it as it is. */
export const SENT_ENCODED = 'Give it as it is: the bridge URL-encodes it.';

/**
 * The description of a parameter whose value the bridge percent-encodes, without the API's advice
 * to encode it first, and saying so instead (see `ENCODING_ADVICE`); unchanged when it gives none.
 */
export function dropEncodingAdvice(description: string): string {
  if (!ENCODING_ADVICE.test(description)) return description;
  const kept = withoutSentences(description, (sentence) => !ENCODING_ADVICE.test(sentence));
  return kept ? `${kept} ${SENT_ENCODED}` : SENT_ENCODED;
}

// `text` with only the sentences `kept` says yes to, each line's layout kept otherwise; lines and
// paragraphs left empty go.
function withoutSentences(text: string, kept: (sentence: string) => boolean): string {
  return text
    .split('\n')
    .map((line) => {
      const sentences = sentencesOf(line.trim());
      const keep = sentences.map(kept);
      return keep.every(Boolean) ? line : sentences.filter((_, i) => keep[i]).join(' ');
    })
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * `description` without its media-type notes and without the `boilerplate` sentences, except a
 * sentence that names one of `parameters` in backticks (it may say how to call this tool) and is
 * not about credentials. Lines and
 * paragraphs left empty go; the rest keeps its layout.
 */
export function dropBoilerplate(
  description: string,
  boilerplate: ReadonlySet<string>,
  parameters: readonly string[],
): string {
  let text = description.includes('media type')
    ? description.replace(MEDIA_TYPES_NOTE, '').replace(/\n{3,}/g, '\n\n')
    : description;
  // Most descriptions hold none of the (few dozen) sentences: a substring test each, before splitting.
  if (
    boilerplate.size > 0 &&
    ((text.includes('`') && ABOUT_CREDENTIALS.test(text)) ||
      [...boilerplate].some((sentence) => text.includes(sentence)))
  ) {
    const names = parameters.map((name) => `\`${name}\``);
    const kept = (sentence: string) => {
      if (boilerplate.has(sentence))
        return !ABOUT_CREDENTIALS.test(sentence) && names.some((name) => sentence.includes(name));
      // A credentials note repeated but for its scopes goes too, as the same note repeated does.
      const shape = credentialsShape(sentence);
      return shape === undefined || !boilerplate.has(shape);
    };
    text = withoutSentences(text, kept);
  }
  return text.trim();
}
