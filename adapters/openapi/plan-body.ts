import { type JsonSchema, propertyDescription } from '../../src/index.js';
import type { SchemaConverter } from './convert-schema.js';
import type { OperationInfo } from './list-operations.js';
import { type BodyKind, bodyKind, pickMediaType } from './media-types.js';
import { parameterSchema } from './plan-parameters.js';
import { deref, isObject, type Json, type Lookup, resolveLocal, setOwn } from './resolve-ref.js';

/** How the request body travels. */
export interface BodyPlan {
  arg: string;
  mediaType: string;
  kind: BodyKind;
  required: boolean;
  /** Top-level fields of a multipart body sent as files (the argument is base64). */
  binaryFields: string[];
}

export interface PlannedBody {
  plan: BodyPlan;
  schema: JsonSchema;
}

/** The body of an OpenAPI 3.x operation, in its preferred media type. */
export function openApiBodyPlan(
  info: OperationInfo,
  document: Json,
  arg: string,
  converter: SchemaConverter,
): PlannedBody | undefined {
  if (info.operation.requestBody === undefined) return undefined;
  const requestBody = deref<Json>(document, info.operation.requestBody);
  const content = isObject(requestBody.content) ? requestBody.content : {};
  const mediaType = pickMediaType(Object.keys(content));
  if (mediaType === undefined) return undefined;
  const media = isObject(content[mediaType]) ? (content[mediaType] as Json) : {};
  const kind = bodyKind(mediaType);
  const schema = bodySchema(kind, media.schema, converter);
  const description = propertyDescription(requestBody.description);
  if (description && schema.description === undefined) schema.description = description;
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

/** The body of a Swagger 2.0 operation: its `body` parameter, or its `formData` parameters as one object. */
export function swaggerBodyPlan(
  parameters: Json[],
  info: OperationInfo,
  document: Json,
  arg: string,
  converter: SchemaConverter,
): PlannedBody | undefined {
  const consumes = (Array.isArray(info.operation.consumes) ? info.operation.consumes : document.consumes) as
    | string[]
    | undefined;
  const bodyParameter = parameters.find((p) => p.in === 'body');
  if (bodyParameter) {
    const mediaType = pickMediaType(consumes ?? []) ?? 'application/json';
    const kind = bodyKind(mediaType);
    const schema = bodySchema(kind, bodyParameter.schema, converter);
    const description = propertyDescription(bodyParameter.description);
    if (description && schema.description === undefined) schema.description = description;
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
    const converted = converter.convertInline(schema, 'request');
    const description = propertyDescription(field.description);
    if (description) converted.description = description;
    setOwn(properties, field.name as string, converted);
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

function bodySchema(kind: BodyKind, raw: unknown, converter: SchemaConverter): JsonSchema {
  if (kind === 'binary') {
    return { type: 'string', contentEncoding: 'base64', description: 'The request body, base64-encoded.' };
  }
  if (kind === 'text' && raw === undefined) return { type: 'string' };
  return converter.convertInline(raw ?? {}, 'request');
}

/** Top-level fields of a multipart body that carry files (base64 in the arguments). */
export function binaryFields(schema: JsonSchema, defs: Lookup): string[] {
  const root = resolveLocal(schema, defs);
  const properties = isObject(root.properties) ? root.properties : {};
  return Object.keys(properties).filter((name) => {
    const property = resolveLocal(properties[name] as JsonSchema, defs);
    const items = isObject(property.items) ? resolveLocal(property.items as JsonSchema, defs) : undefined;
    return property.contentEncoding === 'base64' || items?.contentEncoding === 'base64';
  });
}
