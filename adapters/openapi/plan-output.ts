import type { JsonSchema } from '../../src/index.js';
import { SCHEMA_KEYS, SCHEMA_LIST_KEYS, SCHEMA_MAP_KEYS, type SchemaConverter } from './convert-schema.js';
import type { OperationInfo } from './list-operations.js';
import type { SpecVersion } from './load-document.js';
import { isJson } from './media-types.js';
import { deref, isObject, type Json, type Lookup, resolveLocal } from './resolve-ref.js';

/**
 * Characters of `$defs` an output schema may carry. Response schemas of big APIs pull in deep
 * component graphs (GitHub: 4 MB over 1,223 operations); past this budget the output schema keeps
 * the top level only, nested objects left open, so it stays true to the response and small.
 */
const OUTPUT_DEFS_BUDGET = 2_000;

/**
 * The output schema of an operation: its success response's JSON schema when that is an object,
 * with `$defs` when they fit the budget, else the top level only; without annotations (see
 * `withoutAnnotations`).
 */
export function planOutput(schema: unknown, converter: SchemaConverter): JsonSchema | undefined {
  const deps = new Set<string>();
  const output = converter.convertInline(schema, 'response', deps);
  const lookup: Lookup = (name) => converter.lookup(name, 'response');
  if (!isObjectSchema(output, lookup)) return undefined;
  // The shallow form keeps types, enums and formats only: it has no annotations to strip.
  if (!converter.definitionsFit(deps, 'response', OUTPUT_DEFS_BUDGET)) return shallowOutput(output, lookup);
  const full: JsonSchema = { type: 'object', ...output };
  const defs = converter.definitions(deps, 'response');
  if (Object.keys(defs).length > 0) full.$defs = defs;
  return withoutAnnotations(full);
}

/**
 * Keywords that only annotate: JSON Schema 2020-12 never validates with them. An output schema is
 * read by the client to check and use results, never by the model to write arguments, so they
 * are left out (about 160 kB of GitHub's tools/list); validation is unchanged.
 */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
const SUBSCHEMA = new Set<string>(SCHEMA_KEYS);
const SUBSCHEMA_LISTS = new Set<string>(SCHEMA_LIST_KEYS);
const SUBSCHEMA_MAPS = new Set<string>(SCHEMA_MAP_KEYS);

// Components are shared by many operations' output schemas: each is stripped once.
const stripped = new WeakMap<JsonSchema, JsonSchema>();

/** A copy of `schema` without annotation keywords; the converter's shared schemas are not touched. */
export function withoutAnnotations(schema: JsonSchema): JsonSchema {
  let out = stripped.get(schema);
  if (!out) {
    out = strip(schema);
    stripped.set(schema, out);
  }
  return out;
}

function strip(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (SUBSCHEMA.has(key) && isObject(value)) out[key] = withoutAnnotations(value as JsonSchema);
    else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((item) => (isObject(item) ? withoutAnnotations(item as JsonSchema) : item));
    } else if (SUBSCHEMA_MAPS.has(key) && isObject(value)) {
      const map: Json = {};
      for (const [name, sub] of Object.entries(value)) {
        map[name] = isObject(sub) ? withoutAnnotations(sub as JsonSchema) : sub;
      }
      out[key] = map;
    } else out[key] = value;
  }
  return out;
}

function shallowOutput(schema: JsonSchema, defs: Lookup): JsonSchema {
  const root = resolveLocal(schema, defs);
  const out: JsonSchema = { type: 'object' };
  const merged: Json = {};
  const required = new Set<string>();
  const parts = Array.isArray(root.allOf)
    ? (root.allOf as JsonSchema[]).map((p) => resolveLocal(p, defs))
    : [root];
  for (const part of parts) {
    if (isObject(part.properties)) Object.assign(merged, part.properties);
    if (Array.isArray(part.required)) for (const name of part.required) required.add(String(name));
  }
  const properties: Json = {};
  for (const [name, property] of Object.entries(merged))
    properties[name] = summarize(property as JsonSchema, defs, 1);
  out.properties = properties;
  const present = [...required].filter((name) => name in properties);
  if (present.length > 0) out.required = present;
  return out;
}

// A schema reduced to its type (and, one level down, its items' type): true to the data, small.
function summarize(schema: JsonSchema, defs: Lookup, depth: number): JsonSchema {
  const resolved = resolveLocal(schema, defs);
  const out: JsonSchema = {};
  if (resolved.type !== undefined) out.type = resolved.type;
  else if (Array.isArray(resolved.anyOf ?? resolved.oneOf)) {
    const variants = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[];
    const types = new Set<unknown>();
    for (const variant of variants) {
      const type = resolveLocal(variant, defs).type;
      if (type === undefined) return {};
      for (const t of Array.isArray(type) ? type : [type]) types.add(t);
    }
    out.type = [...types];
  } else if (resolved.allOf !== undefined || resolved.properties !== undefined) out.type = 'object';
  if (resolved.enum !== undefined) out.enum = resolved.enum;
  if (resolved.format !== undefined) out.format = resolved.format;
  const isArray = out.type === 'array' || (Array.isArray(out.type) && out.type.includes('array'));
  if (isArray)
    out.items =
      depth > 0 && isObject(resolved.items) ? summarize(resolved.items as JsonSchema, defs, depth - 1) : {};
  return out;
}

function isObjectSchema(schema: JsonSchema, defs: Lookup): boolean {
  const root = resolveLocal(schema, defs);
  if (root.type === 'object') return true;
  if (root.type !== undefined) return false;
  if (root.properties !== undefined) return true;
  if (Array.isArray(root.allOf) && root.allOf.length > 0) {
    return root.allOf.every((part) => isObject(part) && isObjectSchema(part as JsonSchema, defs));
  }
  return false;
}

export interface SuccessResponse {
  mediaTypes: string[];
  jsonSchema?: unknown;
}

/** The media types and JSON schema of the operation's first 2xx response. */
export function successResponse(info: OperationInfo, document: Json, version: SpecVersion): SuccessResponse {
  const responses = isObject(info.operation.responses) ? info.operation.responses : {};
  const code = Object.keys(responses)
    .filter((key) => /^2(\d\d|XX)$/i.test(key))
    .sort()[0];
  if (code === undefined) return { mediaTypes: [] };
  let response: Json;
  try {
    response = deref<Json>(document, responses[code]);
  } catch {
    return { mediaTypes: [] };
  }
  if (!isObject(response)) return { mediaTypes: [] };
  if (version === 'swagger2') {
    const produces = (Array.isArray(info.operation.produces) ? info.operation.produces : document.produces) as
      | string[]
      | undefined;
    const mediaTypes = produces ?? [];
    const jsonLike = mediaTypes.length === 0 || mediaTypes.some(isJson);
    return jsonLike && response.schema !== undefined
      ? { mediaTypes, jsonSchema: response.schema }
      : { mediaTypes };
  }
  const content = isObject(response.content) ? response.content : {};
  const mediaTypes = Object.keys(content);
  const json = mediaTypes.find(isJson);
  const media = json === undefined ? undefined : content[json];
  return isObject(media) && media.schema !== undefined
    ? { mediaTypes, jsonSchema: media.schema }
    : { mediaTypes };
}
