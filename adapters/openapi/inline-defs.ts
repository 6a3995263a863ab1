import { definitionName, type JsonSchema } from '../../src/index.js';
import { setOwn } from './resolve-ref.js';

/** Keywords a `$ref` may sit beside and still be replaced by its target: they never validate. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'default',
  '$comment',
]);
/** Keywords whose values are data, never schemas: a `{"$ref": …}` inside them is not a reference. */
const DATA = new Set(['enum', 'const', 'default', 'examples']);

/**
 * Puts each `$defs` entry that is referenced exactly once, and not part of a cycle, in place of
 * its reference: a `$defs` entry costs its name twice and a `$ref` wrapper, and strict clients
 * read inline schemas more reliably. Shared and recursive entries stay. Validation is unchanged:
 * a reference is replaced only when the keywords beside it are annotations. Returns a new schema
 * when anything changed, sharing what did not (the converter's component schemas are never modified).
 */
export function inlineSingleUse(schema: JsonSchema): JsonSchema {
  const defs = schema.$defs as Record<string, JsonSchema> | undefined;
  if (!defs || typeof defs !== 'object') return schema;
  const uses = new Map<string, { count: number; clean: boolean }>();
  const edges = new Map<string, Set<string>>();
  const { $defs: _, ...root } = schema;
  collect(root, uses);
  for (const [name, def] of Object.entries(defs)) {
    const into = new Set<string>();
    collect(def, uses, into);
    edges.set(name, into);
  }
  const inline = new Set(
    Object.keys(defs).filter((name) => {
      const use = uses.get(name);
      return use?.count === 1 && use.clean && !reaches(name, name, edges, new Set());
    }),
  );
  if (inline.size === 0) return schema;

  // Copies only along the paths to a replaced reference; everything else is shared as it was.
  const replace = (node: unknown): unknown => {
    if (Array.isArray(node)) {
      let changed = false;
      const items = node.map((item) => {
        const next = replace(item);
        changed ||= next !== item;
        return next;
      });
      return changed ? items : node;
    }
    if (node === null || typeof node !== 'object') return node;
    const object = node as Record<string, unknown>;
    const target = typeof object.$ref === 'string' ? definitionName(object.$ref) : undefined;
    if (target !== undefined && inline.has(target)) {
      const { $ref: __, ...annotations } = object;
      return { ...(replace(defs[target]) as Record<string, unknown>), ...annotations };
    }
    let out: Record<string, unknown> | undefined;
    for (const key in object) {
      const value = object[key];
      const next = DATA.has(key) ? value : replace(value);
      if (next !== value) {
        out ??= { ...object };
        setOwn(out, key, next);
      }
    }
    return out ?? object;
  };
  const result = { ...(replace(root) as JsonSchema) };
  const kept: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(defs)) if (!inline.has(name)) kept[name] = replace(def);
  if (Object.keys(kept).length > 0) result.$defs = kept;
  return result;
}

// Counts the references to each `$defs` entry, and whether each sits beside annotations only.
function collect(
  node: unknown,
  uses: Map<string, { count: number; clean: boolean }>,
  into?: Set<string>,
): void {
  if (Array.isArray(node)) {
    for (const item of node) collect(item, uses, into);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const object = node as Record<string, unknown>;
  const target = typeof object.$ref === 'string' ? definitionName(object.$ref) : undefined;
  if (target !== undefined) {
    const use = uses.get(target) ?? { count: 0, clean: true };
    use.count++;
    if (use.clean) for (const key in object) if (key !== '$ref' && !ANNOTATIONS.has(key)) use.clean = false;
    uses.set(target, use);
    into?.add(target);
  }
  // `for…in` over a parsed or copied schema (plain objects, own keys only), without an entries array.
  for (const key in object) if (!DATA.has(key)) collect(object[key], uses, into);
}

function reaches(from: string, goal: string, edges: Map<string, Set<string>>, seen: Set<string>): boolean {
  for (const next of edges.get(from) ?? []) {
    if (next === goal) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    if (reaches(next, goal, edges, seen)) return true;
  }
  return false;
}
