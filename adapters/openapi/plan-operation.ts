import { BridgeError, type JsonSchema } from '../../src/index.js';
import type { SchemaConverter } from './convert-schema.js';
import type { HttpMethod, OperationInfo } from './list-operations.js';
import type { SpecVersion } from './load-document.js';
import { deref, isObject, type Json } from './resolve-ref.js';

export type ParamLocation = 'path' | 'query' | 'header' | 'cookie';

/** How one parameter travels: where, under which argument name, serialized how. */
export interface ParamPlan {
  name: string;
  in: ParamLocation;
  /** The tool argument carrying it (the name, or `name__query` when two locations share a name). */
  arg: string;
  required: boolean;
  /** OpenAPI `style`: form, simple, label, matrix, spaceDelimited, pipeDelimited, deepObject (and tabDelimited for Swagger's tsv). */
  style: string;
  explode: boolean;
  allowReserved: boolean;
  /** `content: application/json` parameters are sent as JSON text. */
  json: boolean;
}

export type BodyKind = 'json' | 'form' | 'multipart' | 'text' | 'binary';

/** How the request body travels. */
export interface BodyPlan {
  arg: string;
  mediaType: string;
  kind: BodyKind;
  required: boolean;
  /** Top-level fields of a multipart body sent as files (the argument is base64). */
  binaryFields: string[];
}

/** Everything needed to turn arguments into an HTTP request for one operation. */
export interface OperationPlan {
  method: HttpMethod;
  path: string;
  params: ParamPlan[];
  body?: BodyPlan;
  /** Alternatives of security requirements (any one suffices); empty: no auth. */
  security: Json[];
  servers?: unknown[];
  accept: string;
}

/** A planned tool: the request plan and the schemas. */
export interface PlannedOperation {
  plan: OperationPlan;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

/**
 * Characters of `$defs` an output schema may carry. Response schemas of big APIs pull in deep
 * component graphs (GitHub: 4 MB over 1,223 operations); past this budget the output schema keeps
 * the top level only, nested objects left open, so it stays true to the response and small.
 */
const OUTPUT_DEFS_BUDGET = 2_000;

// Header parameters that OpenAPI says are ignored: the bridge sets them itself.
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
const LOCATION_ORDER: ParamLocation[] = ['path', 'query', 'header', 'cookie'];

/** Turns one operation into its request plan and input/output schemas. Throws when it cannot. */
export function planOperation(
  info: OperationInfo,
  document: Json,
  version: SpecVersion,
  converter: SchemaConverter,
): PlannedOperation {
  const deps = new Set<string>();
  const responseDeps = new Set<string>();
  const parameters = collectParameters(info, document);
  const swaggerBody =
    version === 'swagger2' ? parameters.filter((p) => p.in === 'body' || p.in === 'formData') : [];
  const plain = parameters.filter((p) => LOCATION_ORDER.includes(p.in as ParamLocation));

  const nameCount = new Map<string, number>();
  for (const p of plain) nameCount.set(p.name as string, (nameCount.get(p.name as string) ?? 0) + 1);

  const properties: Json = {};
  const required: string[] = [];
  const params: ParamPlan[] = [];
  for (const location of LOCATION_ORDER) {
    for (const parameter of plain.filter((p) => p.in === location)) {
      const name = parameter.name as string;
      if (location === 'header' && RESERVED_HEADERS.has(name.toLowerCase())) continue;
      const arg = (nameCount.get(name) ?? 0) > 1 && location !== 'path' ? `${name}__${location}` : name;
      const { schema, json } = parameterSchema(parameter, version);
      const converted = converter.convertInline(schema, 'request', deps);
      if (typeof parameter.description === 'string' && parameter.description.trim() !== '') {
        converted.description = trimText(parameter.description, 400);
      }
      if (parameter.deprecated === true) converted.deprecated = true;
      properties[arg] = converted;
      const isRequired = location === 'path' || parameter.required === true;
      if (isRequired) required.push(arg);
      params.push({
        name,
        in: location,
        arg,
        required: isRequired,
        ...serialization(parameter, location, version),
        json,
      });
    }
  }

  const bodyArg = 'body' in properties ? 'requestBody' : 'body';
  const body =
    version === 'swagger2'
      ? swaggerBodyPlan(swaggerBody, info, document, bodyArg, converter, deps)
      : openApiBodyPlan(info, document, bodyArg, converter, deps);
  if (body) {
    properties[bodyArg] = body.schema;
    if (body.plan.required) required.push(bodyArg);
  }

  const inputSchema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) inputSchema.required = required;
  inputSchema.additionalProperties = false;
  const defs = converter.definitions(deps, 'request');
  if (Object.keys(defs).length > 0) inputSchema.$defs = defs;
  if (body?.plan.kind === 'multipart') {
    body.plan.binaryFields = binaryFields(properties[bodyArg] as JsonSchema, (name) => defs[name]);
  }

  const success = successResponse(info, document, version);
  const plan: OperationPlan = {
    method: info.method,
    path: info.path,
    params,
    security: securityOf(info, document),
    accept: success.mediaTypes.length > 0 ? success.mediaTypes.join(', ') : 'application/json, */*;q=0.8',
  };
  if (body) plan.body = body.plan;
  if (info.servers) plan.servers = info.servers;

  const planned: PlannedOperation = { plan, inputSchema };
  if (success.jsonSchema !== undefined) {
    const output = converter.convertInline(success.jsonSchema, 'response', responseDeps);
    const lookup: Lookup = (name) => converter.lookup(name, 'response');
    if (isObjectSchema(output, lookup)) {
      if (converter.definitionsFit(responseDeps, 'response', OUTPUT_DEFS_BUDGET)) {
        const schema: JsonSchema = { type: 'object', ...output };
        const outputDefs = converter.definitions(responseDeps, 'response');
        if (Object.keys(outputDefs).length > 0) schema.$defs = outputDefs;
        planned.outputSchema = schema;
      } else {
        planned.outputSchema = shallowOutput(output, lookup);
      }
    }
  }
  return planned;
}

function collectParameters(info: OperationInfo, document: Json): Json[] {
  const byKey = new Map<string, Json>();
  const own = Array.isArray(info.operation.parameters) ? info.operation.parameters : [];
  for (const raw of [...info.pathParameters, ...own]) {
    const parameter = deref<Json>(document, raw);
    if (!isObject(parameter) || typeof parameter.name !== 'string' || typeof parameter.in !== 'string') {
      throw new BridgeError('invalid_input', 'a parameter has no name or location');
    }
    byKey.set(`${parameter.in}:${parameter.name}`, parameter);
  }
  return [...byKey.values()];
}

function parameterSchema(parameter: Json, version: SpecVersion): { schema: unknown; json: boolean } {
  if (version === 'swagger2') {
    const schema: Json = {};
    for (const [key, value] of Object.entries(parameter)) {
      if (!['name', 'in', 'required', 'description', 'collectionFormat', 'allowEmptyValue'].includes(key)) {
        schema[key] = value;
      }
    }
    return { schema, json: false };
  }
  if (parameter.schema !== undefined) return { schema: parameter.schema, json: false };
  if (isObject(parameter.content)) {
    const [mediaType, media] = Object.entries(parameter.content)[0] ?? [];
    const schema = isObject(media) ? media.schema : undefined;
    return { schema: schema ?? { type: 'string' }, json: mediaType !== undefined && isJson(mediaType) };
  }
  return { schema: { type: 'string' }, json: false };
}

function serialization(
  parameter: Json,
  location: ParamLocation,
  version: SpecVersion,
): Pick<ParamPlan, 'style' | 'explode' | 'allowReserved'> {
  const allowReserved = parameter.allowReserved === true;
  if (version === 'swagger2') {
    const format = typeof parameter.collectionFormat === 'string' ? parameter.collectionFormat : 'csv';
    const simple = location === 'path' || location === 'header';
    const style =
      format === 'ssv'
        ? 'spaceDelimited'
        : format === 'pipes'
          ? 'pipeDelimited'
          : format === 'tsv'
            ? 'tabDelimited'
            : simple
              ? 'simple'
              : 'form';
    return { style, explode: format === 'multi', allowReserved };
  }
  const style =
    typeof parameter.style === 'string'
      ? parameter.style
      : location === 'path' || location === 'header'
        ? 'simple'
        : 'form';
  const explode = typeof parameter.explode === 'boolean' ? parameter.explode : style === 'form';
  return { style, explode, allowReserved };
}

interface PlannedBody {
  plan: BodyPlan;
  schema: JsonSchema;
}

function openApiBodyPlan(
  info: OperationInfo,
  document: Json,
  arg: string,
  converter: SchemaConverter,
  deps: Set<string>,
): PlannedBody | undefined {
  if (info.operation.requestBody === undefined) return undefined;
  const requestBody = deref<Json>(document, info.operation.requestBody);
  const content = isObject(requestBody.content) ? requestBody.content : {};
  const mediaType = pickMediaType(Object.keys(content));
  if (mediaType === undefined) return undefined;
  const media = isObject(content[mediaType]) ? (content[mediaType] as Json) : {};
  const kind = bodyKind(mediaType);
  const schema = bodySchema(kind, media.schema, converter, deps);
  if (typeof requestBody.description === 'string' && schema.description === undefined) {
    schema.description = trimText(requestBody.description, 400);
  }
  return {
    plan: {
      arg,
      mediaType: mediaType === '*/*' ? 'application/json' : mediaType,
      kind,
      required: requestBody.required === true,
      binaryFields: [],
    },
    schema,
  };
}

function swaggerBodyPlan(
  parameters: Json[],
  info: OperationInfo,
  document: Json,
  arg: string,
  converter: SchemaConverter,
  deps: Set<string>,
): PlannedBody | undefined {
  const consumes = (Array.isArray(info.operation.consumes) ? info.operation.consumes : document.consumes) as
    | string[]
    | undefined;
  const bodyParameter = parameters.find((p) => p.in === 'body');
  if (bodyParameter) {
    const mediaType = pickMediaType(consumes ?? []) ?? 'application/json';
    const kind = bodyKind(mediaType);
    const schema = bodySchema(kind, bodyParameter.schema, converter, deps);
    if (typeof bodyParameter.description === 'string' && schema.description === undefined) {
      schema.description = trimText(bodyParameter.description, 400);
    }
    return {
      plan: { arg, mediaType, kind, required: bodyParameter.required === true, binaryFields: [] },
      schema,
    };
  }
  const fields = parameters.filter((p) => p.in === 'formData');
  if (fields.length === 0) return undefined;
  const multipart = fields.some((p) => p.type === 'file') || (consumes ?? []).includes('multipart/form-data');
  const properties: Json = {};
  const required: string[] = [];
  for (const field of fields) {
    const { schema } = parameterSchema(field, 'swagger2');
    const converted = converter.convertInline(schema, 'request', deps);
    if (typeof field.description === 'string') converted.description = trimText(field.description, 400);
    properties[field.name as string] = converted;
    if (field.required === true) required.push(field.name as string);
  }
  const schema: JsonSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = required;
  return {
    plan: {
      arg,
      mediaType: multipart ? 'multipart/form-data' : 'application/x-www-form-urlencoded',
      kind: multipart ? 'multipart' : 'form',
      required: required.length > 0,
      binaryFields: [],
    },
    schema,
  };
}

function bodySchema(kind: BodyKind, raw: unknown, converter: SchemaConverter, deps: Set<string>): JsonSchema {
  if (kind === 'binary') {
    return { type: 'string', contentEncoding: 'base64', description: 'The request body, base64-encoded.' };
  }
  if (kind === 'text' && raw === undefined) return { type: 'string' };
  return converter.convertInline(raw ?? {}, 'request', deps);
}

/** JSON first, then forms, then text, then anything else (sent as bytes). */
export function pickMediaType(types: readonly string[]): string | undefined {
  const lower = types.map((t) => t.toLowerCase());
  const rank = (type: string) => {
    if (isJson(type)) return 0;
    if (type.startsWith('application/x-www-form-urlencoded')) return 1;
    if (type.startsWith('multipart/form-data')) return 2;
    if (type.startsWith('text/')) return 3;
    if (type === '*/*') return 4;
    return 5;
  };
  let best: number | undefined;
  lower.forEach((type, index) => {
    if (best === undefined || rank(type) < rank(lower[best] as string)) best = index;
  });
  return best === undefined ? undefined : types[best];
}

export function isJson(mediaType: string): boolean {
  const type = (mediaType.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json') || type === '*/*';
}

function bodyKind(mediaType: string): BodyKind {
  const type = mediaType.toLowerCase();
  if (isJson(type)) return 'json';
  if (type.startsWith('application/x-www-form-urlencoded')) return 'form';
  if (type.startsWith('multipart/')) return 'multipart';
  if (type.startsWith('text/') || type.endsWith('+xml') || type === 'application/xml') return 'text';
  return 'binary';
}

/** Finds a `$defs` entry by name. */
type Lookup = (name: string) => JsonSchema | undefined;

function binaryFields(schema: JsonSchema, defs: Lookup): string[] {
  const root = resolveLocal(schema, defs);
  const properties = isObject(root.properties) ? root.properties : {};
  return Object.keys(properties).filter((name) => {
    const property = resolveLocal(properties[name] as JsonSchema, defs);
    const items = isObject(property.items) ? resolveLocal(property.items as JsonSchema, defs) : undefined;
    return property.contentEncoding === 'base64' || items?.contentEncoding === 'base64';
  });
}

function resolveLocal(schema: JsonSchema, defs: Lookup): JsonSchema {
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/$defs/')) {
    return defs(schema.$ref.slice('#/$defs/'.length)) ?? schema;
  }
  return schema;
}

function shallowOutput(schema: JsonSchema, defs: Lookup): JsonSchema {
  const root = resolveLocal(schema, defs);
  const out: JsonSchema = { type: 'object' };
  if (typeof root.description === 'string') out.description = root.description;
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

interface SuccessResponse {
  mediaTypes: string[];
  jsonSchema?: unknown;
}

function successResponse(info: OperationInfo, document: Json, version: SpecVersion): SuccessResponse {
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

function securityOf(info: OperationInfo, document: Json): Json[] {
  const security = Array.isArray(info.operation.security) ? info.operation.security : document.security;
  return Array.isArray(security) ? security.filter(isObject) : [];
}

/**
 * `text` within `budget` characters. Markdown links keep their words and lose their URLs: API
 * docs link every other phrase, and the URLs cost tokens without helping a model call the API.
 */
export function trimText(text: string, budget: number): string {
  if (text.length <= budget && !text.includes('](')) return text.trim();
  const clean = text.replace(/\[([^\]]+)\]\((?:https?:\/\/|\/)[^)\s]*\)/g, '$1').trim();
  return clean.length <= budget ? clean : `${clean.slice(0, budget - 1).trimEnd()}…`;
}
