import type { ToolAnnotations } from '../../src/index.js';

/** Words that, anywhere in a mutation's name, say it throws something away. */
const DESTRUCTIVE = new Set([
  'abort',
  'archive',
  'ban',
  'block',
  'cancel',
  'clear',
  'delete',
  'destroy',
  'detach',
  'disable',
  'discard',
  'drop',
  'erase',
  'expire',
  'kill',
  'purge',
  'remove',
  'reset',
  'revoke',
  'terminate',
  'truncate',
  'unlink',
  'unpublish',
  'wipe',
]);

/** Leading verbs whose effect does not change when repeated (setting, deleting, marking). */
const IDEMPOTENT = new Set([
  'archive',
  'clear',
  'delete',
  'destroy',
  'disable',
  'enable',
  'lock',
  'mark',
  'put',
  'remove',
  'replace',
  'reset',
  'revoke',
  'set',
  'unarchive',
  'unlock',
  'update',
  'upsert',
]);

/**
 * The hints of a GraphQL operation: queries only read (so clients may run them without asking);
 * mutations write, and are destructive when one of `names` (the operation's and its root fields'
 * names) says so. Everything goes to a remote API, so all are open-world.
 */
export function inferAnnotations(kind: 'query' | 'mutation', names: readonly string[]): ToolAnnotations {
  if (kind === 'query') {
    return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
  }
  const words = names.map(splitWords);
  return {
    readOnlyHint: false,
    destructiveHint: words.some((list) => list.some((word) => DESTRUCTIVE.has(word))),
    idempotentHint: words.length > 0 && words.every((list) => IDEMPOTENT.has(list[0] ?? '')),
    openWorldHint: true,
  };
}

/** `deleteIssueComment` → `['delete', 'issue', 'comment']`; `remove_user` → `['remove', 'user']`. */
function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}
