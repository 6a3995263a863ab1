import type { JsonSchema } from '../../src/index.js';
import type { OperationInfo } from './list-operations.js';
import type { SpecVersion } from './load-document.js';
import { isJson } from './media-types.js';
import { deref, isObject, type Json, resolvePointer } from './resolve-ref.js';

/**
 * Characters of JSON the properties of an output schema may take. Response schemas of big APIs
 * pull in deep component graphs (GitHub: 4 MB over 1,223 operations), which cost tokens on every
 * tools/list and time at every start, while a client only needs the shape to check and use the
 * result. So an output schema is an outline: the top-level properties, in the order the spec
 * declares them, links last, until this budget is spent. GitHub's outlines keep their first 10-15 fields
 * (148 kB over 1,223 tools, 204 kB at 1,000 characters); the response itself still comes back
 * whole in `structuredContent`, so the cut costs a model only the preview of later fields.
 */
export const OUTPUT_BUDGET = 400;

/** How deep `$ref`/`allOf` chains are followed before a schema is taken as unknown (a loop). */
const MAX_HOPS = 16;
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/**
 * Schemas one outline may visit. `allOf`/`oneOf` members that refer back to their own component
 * multiply at each level, up to `MAX_HOPS` deep (ten such members: billions of visits); past this
 * many, the outline gives up and the output stays open. Real ones visit far fewer (GitHub's: <= 52).
 */
const MAX_VISITS = 20_000;
const TANGLED = new Error('the schema is too tangled to outline');

/** A spec schema as the outline reads it: the document it lives in, its dialect, the visits so far. */
interface Spec {
  document: Json;
  version: SpecVersion;
  visits: number;
}

/**
 * The output schema of an operation, outlined from its success response's schema when that is an
 * object: `type: object`, then each top-level property (within `OUTPUT_BUDGET`) reduced to its
 * type. Deeper levels, formats, enums, patterns and `required` are left open, so the outline is
 * never stricter than the spec's schema: a response the spec allows is never refused, nor one
 * where the API adds an enum value or leaves out a field its spec calls required (GitHub's own
 * response examples do both). The spec's schema is read only as deep as the outline needs;
 * nothing of it is converted.
 */
export function planOutput(schema: unknown, document: Json, version: SpecVersion): JsonSchema | undefined {
  // Big APIs answer with the same components again and again (GitHub: 506 of its 926 response
  // schemas are a bare `$ref`, to 241 components): each is outlined once per document.
  const ref = isObject(schema) && typeof schema.$ref === 'string' && Object.keys(schema).length === 1;
  if (!ref) return outline(schema, { document, version, visits: 0 });
  let outlines = byRef.get(document);
  if (!outlines) {
    outlines = new Map();
    byRef.set(document, outlines);
  }
  const key = `${version} ${(schema as Json).$ref}`;
  if (!outlines.has(key)) outlines.set(key, outline(schema, { document, version, visits: 0 }));
  const outlined = outlines.get(key);
  // A copy for each tool: what one tool's schema holds is never another's to change.
  if (!outlined) return undefined;
  return outlined.properties
    ? { ...outlined, properties: { ...(outlined.properties as Json) } }
    : { ...outlined };
}

const byRef = new WeakMap<Json, Map<string, JsonSchema | undefined>>();

function outline(schema: unknown, spec: Spec): JsonSchema | undefined {
  try {
    return outlineOf(schema, spec);
  } catch (error) {
    // Too tangled to tell within `MAX_VISITS`: open, as for a schema that is not an object.
    if (error === TANGLED) return undefined;
    throw error;
  }
}

function outlineOf(schema: unknown, spec: Spec): JsonSchema | undefined {
  const parts = conjuncts(schema, spec);
  const type = typeOf(parts, spec);
  if (type?.length !== 1 || type[0] !== 'object') return undefined;
  const declared = new Map<string, unknown[]>();
  for (const part of parts) {
    if (!isObject(part.properties)) continue;
    for (const [name, property] of Object.entries(part.properties)) {
      const list = declared.get(name) ?? [];
      list.push(property);
      declared.set(name, list);
    }
  }
  const kept = new Map<string, JsonSchema>();
  let left = OUTPUT_BUDGET;
  // Links last: GitHub's objects open with a dozen `*_url` fields (a pull request's ten come before
  // its `state` and `title`), which tell a model least about the answer.
  const names = [...declared.keys()];
  for (const name of [...names.filter((one) => !LINK.test(one)), ...names.filter((one) => LINK.test(one))]) {
    const propertyParts = (declared.get(name) as unknown[]).flatMap((one) => conjuncts(one, spec));
    // Responses leave out writeOnly properties (they are only ever sent).
    if (propertyParts.some((part) => part.writeOnly === true)) continue;
    const summary = summarize(propertyParts, spec);
    const cost = name.length + JSON.stringify(summary).length + 4;
    if (cost > left) break;
    left -= cost;
    kept.set(name, summary);
  }
  const out: JsonSchema = { type: 'object' };
  // In the order the spec declares them; fromEntries makes every name an own property, `__proto__`
  // included.
  if (kept.size > 0)
    out.properties = Object.fromEntries(
      names.flatMap((name) => (kept.has(name) ? [[name, kept.get(name)]] : [])),
    );
  return out;
}

/** A property holding a link (`url`, `html_url`, `diff_url`, `avatar_urls`). */
const LINK = /(?:^|_)urls?$/i;

// A property reduced to its type: `{}` when the spec leaves it open or its type cannot be told.
function summarize(parts: Json[], spec: Spec): JsonSchema {
  const type = typeOf(parts, spec);
  if (type === undefined) return {};
  const out: JsonSchema = { type: type.length === 1 ? type[0] : type };
  // Strict clients want `items` on every array; its items stay open.
  if (type.includes('array')) out.items = {};
  return out;
}

/**
 * The schemas that all apply to a value: `schema`, its `$ref` target and its `allOf` members,
 * flattened. OpenAPI 3.0 and Swagger ignore the siblings of a `$ref`; 3.1 applies them.
 */
function conjuncts(schema: unknown, spec: Spec, out: Json[] = [], hops = 0): Json[] {
  if (!isObject(schema) || hops > MAX_HOPS) return out;
  if (++spec.visits > MAX_VISITS) throw TANGLED;
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref.startsWith('#') ? resolvePointer(spec.document, schema.$ref) : undefined;
    // An unresolvable or remote reference leaves the value open: nothing is added for it.
    conjuncts(target, spec, out, hops + 1);
    if (spec.version !== 'openapi31') return out;
  }
  out.push(schema);
  if (Array.isArray(schema.allOf)) for (const member of schema.allOf) conjuncts(member, spec, out, hops + 1);
  return out;
}

/**
 * The JSON types a value of all `parts` may have, or undefined when any is possible (or the parts
 * disagree: the outline stays open rather than refusing what the spec may mean).
 */
function typeOf(parts: Json[], spec: Spec, hops = 0): string[] | undefined {
  let types: string[] | undefined;
  let nullable = false;
  for (const part of parts) {
    if (part.nullable === true || part['x-nullable'] === true) nullable = true;
    const own = ownType(part, spec, hops);
    if (own === undefined) continue;
    if (types === undefined) types = own;
    else {
      const both = types.filter((type) => own.includes(type));
      if (both.length === 0) return undefined;
      types = both;
    }
  }
  if (types && nullable && !types.includes('null')) types = [...types, 'null'];
  return types;
}

function ownType(part: Json, spec: Spec, hops: number): string[] | undefined {
  if (typeof part.type === 'string') return JSON_TYPES.has(part.type) ? [part.type] : undefined;
  if (Array.isArray(part.type)) {
    const types = part.type.filter((type): type is string => typeof type === 'string');
    return types.every((type) => JSON_TYPES.has(type)) && types.length > 0 ? types : undefined;
  }
  const variants = part.oneOf ?? part.anyOf;
  if (Array.isArray(variants) && variants.length > 0 && hops < MAX_HOPS) {
    const union = new Set<string>();
    for (const variant of variants) {
      const type = typeOf(conjuncts(variant, spec), spec, hops + 1);
      if (type === undefined) return undefined;
      for (const one of type) union.add(one);
    }
    return [...union];
  }
  if (part.properties !== undefined || part.additionalProperties !== undefined) return ['object'];
  if (part.items !== undefined) return ['array'];
  return undefined;
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
