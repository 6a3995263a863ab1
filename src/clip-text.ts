/**
 * The start of `text` within `max` characters, saying how long the whole was when it is cut, for
 * text an upstream sent that goes into a message (an error body, an error's message): the message
 * stays readable and small however much was sent. A surrogate pair is not split.
 *
 * @example clipText('a'.repeat(5000), 4000) // 'aaaa…a… [5000 characters in all]'
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, cutEnd(text, max))}… [${text.length} characters in all]`;
}

/** Where `text` is cut to keep at most `max` characters: one earlier where that splits a surrogate pair. */
export function cutEnd(text: string, max: number): number {
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}
