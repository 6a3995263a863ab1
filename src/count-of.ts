/**
 * `count` and the noun, singular for one: "1 tool", "3 tools". `plural` for a noun whose plural is
 * not the singular and an s.
 *
 * @example countOf(1, 'tool') // '1 tool'
 */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
