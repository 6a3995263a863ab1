/** How `listSome` lists: how many items at most, how each is shown, what stands for the rest. */
export interface ListSomeOptions<T> {
  /** Items listed at most; the rest are only counted. */
  most: number;
  /** One item's line. Cut there what can be long (with `clip` or `clipText`): each place cuts its own parts. */
  show: (item: T) => string;
  /** The last line, for the `count` items not listed; left out when all are listed. */
  more: (count: number) => string;
}

/**
 * The lines of a message that lists what an upstream or a caller sent (errors, problems,
 * violations): at most `most` items, then one line counting the others. Their number and their
 * length are the sender's to choose, and a message listing them all would be as large as they are.
 *
 * @example listSome(messages, { most: 20, show: (m) => clip(m, 300), more: (n) => `and ${n} more` })
 */
export function listSome<T>(items: readonly T[], { most, show, more }: ListSomeOptions<T>): string[] {
  const lines = items.slice(0, most).map((item) => show(item));
  if (items.length > most) lines.push(more(items.length - most));
  return lines;
}
