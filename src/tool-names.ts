import { createHash } from 'node:crypto';

/** The longest tool name the bridge emits: several clients reject longer ones (Cursor: 60). */
export const MAX_TOOL_NAME_LENGTH = 64;

const INVALID = /[^A-Za-z0-9_.-]+/g;

/**
 * Makes `raw` a valid MCP tool name: characters outside `[A-Za-z0-9_.-]` become `_`, and a name over
 * `maxLength` keeps whole leading words plus a short hash of the full name, so two long names that
 * share a prefix stay distinct and the same input always gives the same name.
 *
 * @example sanitizeToolName('repos/list for-org') // 'repos_list_for-org'
 */
export function sanitizeToolName(raw: string, maxLength = MAX_TOOL_NAME_LENGTH): string {
  let name = raw
    .replace(INVALID, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_+|_+$/g, '');
  if (name === '') name = 'tool';
  if (name.length <= maxLength) return name;
  const hash = shortHash(raw);
  const room = maxLength - hash.length - 1;
  let head = name.slice(0, room);
  const lastBreak = Math.max(head.lastIndexOf('_'), head.lastIndexOf('-'), head.lastIndexOf('.'));
  if (lastBreak >= room * 0.6) head = head.slice(0, lastBreak);
  return `${head.replace(/[_.-]+$/, '')}_${hash}`;
}

/**
 * Gives every name in `names` a unique valid name: the first of each sanitized name keeps it (the
 * first of those `chosen[i]` marks, if any: a name the user chose), later duplicates get `_2`,
 * `_3`, … (shortened to fit), skipping every name some entry asks for itself. A suffix never lands
 * on a name asked for: `['del', 'del', 'del_2']` gives `del`, `del_3`, `del_2`, so the tool a
 * config named `del_2` is the one called by that name, not another source's `del`. Deterministic
 * for a given input order.
 */
export function uniqueToolNames(
  names: readonly string[],
  maxLength = MAX_TOOL_NAME_LENGTH,
  chosen: readonly boolean[] = [],
): string[] {
  const bases = names.map((raw) => sanitizeToolName(raw, maxLength));
  const taken = new Set(bases);
  const chosenBases = new Set(bases.filter((_, index) => chosen[index]));
  // Which entry keeps each name: the first that asks for it, or the first chosen one.
  const keeper = new Map<string, number>();
  bases.forEach((base, index) => {
    if (!keeper.has(base) && (chosen[index] || !chosenBases.has(base))) keeper.set(base, index);
  });
  return bases.map((base, index) => {
    if (keeper.get(base) === index) return base;
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = `${sanitizeToolName(base, maxLength - suffix.length)}${suffix}`;
    }
    taken.add(name);
    return name;
  });
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 6);
}
