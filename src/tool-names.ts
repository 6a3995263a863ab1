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
 * Gives every name in `names` a unique valid name, in order: the first keeps its sanitized name,
 * later duplicates get `_2`, `_3`, … (shortened to fit). Deterministic for a given input order.
 */
export function uniqueToolNames(names: readonly string[], maxLength = MAX_TOOL_NAME_LENGTH): string[] {
  const taken = new Set<string>();
  return names.map((raw) => {
    const base = sanitizeToolName(raw, maxLength);
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
