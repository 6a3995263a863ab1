/**
 * `count` and the noun, singular for one: "1 tool", "3 tools". `plural` for a noun whose plural is
 * not the singular and an s.
 *
 * @example countOf(1, 'tool') // '1 tool'
 */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

/** `bytes` as MiB with at most one decimal, for messages: "16 MiB", "1.5 MiB". */
export function mebibytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
}
