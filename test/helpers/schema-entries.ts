import type { JsonSchema } from '../../src/index.js';

/**
 * Entries as `boundSchema` counts them, walked independently: every subschema reached (each
 * definition once, where a reference first reaches it; not an empty `{}`) and every enum value.
 */
export function schemaEntries(schema: JsonSchema): number {
  const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  const seen = new Set<string>();
  const walk = (node: unknown): number => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return 0;
    // An empty schema, which accepts anything, is not counted (a stub's array `items`).
    if (Object.keys(node).length === 0) return 0;
    const object = node as JsonSchema;
    let count = 1 + (Array.isArray(object.enum) ? object.enum.length : 0);
    for (const [key, value] of Object.entries(object)) {
      if (key === '$defs' || key === 'enum') continue;
      if (key === '$ref' && typeof value === 'string') {
        const name = value.slice('#/$defs/'.length);
        if (!seen.has(name) && defs[name]) {
          seen.add(name);
          count += walk(defs[name]);
        }
      } else if (['properties', 'patternProperties', 'dependentSchemas'].includes(key)) {
        for (const sub of Object.values(value as object)) count += walk(sub);
      } else if (['allOf', 'anyOf', 'oneOf', 'prefixItems'].includes(key)) {
        for (const sub of value as unknown[]) count += walk(sub);
      } else if (['items', 'additionalProperties', 'not', 'contains', 'propertyNames'].includes(key)) {
        count += walk(value);
      }
    }
    return count;
  };
  return walk(schema);
}
