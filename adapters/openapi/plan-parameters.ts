import { BridgeError } from '../../src/index.js';
import type { OperationInfo } from './list-operations.js';
import type { SpecVersion } from './load-document.js';
import { isJson } from './media-types.js';
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

/** The operation's parameters, path-level ones overridden by the operation's own (same name and place). */
export function collectParameters(info: OperationInfo, document: Json): Json[] {
  const byKey = new Map<string, Json>();
  const own = Array.isArray(info.operation.parameters) ? info.operation.parameters : [];
  for (const raw of [...info.pathParameters, ...own]) {
    const parameter = deref<Json>(document, raw);
    if (!isObject(parameter) || typeof parameter.name !== 'string' || typeof parameter.in !== 'string') {
      throw new BridgeError('invalid_input', 'a parameter has no name or location');
    }
    if (parameter.in === 'header' && RESERVED_HEADERS.has(parameter.name.toLowerCase())) continue;
    byKey.set(`${parameter.in}:${parameter.name}`, parameter);
  }
  return [...byKey.values()];
}

/**
 * Header parameters never offered to the caller. OpenAPI 3 has `Accept`, `Content-Type` and
 * `Authorization` ignored; the bridge sets those itself, and `Cookie` too (cookie parameters and
 * cookie credentials: a caller's value there would come before a credential the bridge appends).
 * `Host` would send the user's credentials to another site served from the API's address (a
 * shared load balancer or CDN), and the connection's own headers would let a caller frame the
 * request; HTTP sets all of them.
 */
const RESERVED_HEADERS = new Set([
  'accept',
  'content-type',
  'authorization',
  'cookie',
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

/** The schema of a parameter, and whether it travels as JSON text (`content: application/json`). */
export function parameterSchema(parameter: Json, version: SpecVersion): { schema: unknown; json: boolean } {
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

/** The `style` / `explode` of a parameter, with Swagger 2.0 `collectionFormat` mapped onto them. */
export function serialization(
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
