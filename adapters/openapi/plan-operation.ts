import { type JsonSchema, listedInputSchema, propertyDescription } from '../../src/index.js';
import type { SchemaConverter } from './convert-schema.js';
import { dropEncodingAdvice, dropRepeatedSentences } from './drop-boilerplate.js';
import type { HttpMethod, OperationInfo } from './list-operations.js';
import type { SpecVersion } from './load-document.js';
import { type BodyPlan, binaryFields, openApiBodyPlan, swaggerBodyPlan } from './plan-body.js';
import { planOutput, successResponse } from './plan-output.js';
import {
  collectParameters,
  type ParamLocation,
  type ParamPlan,
  parameterSchema,
  serialization,
} from './plan-parameters.js';
import { isObject, type Json, setOwn } from './resolve-ref.js';

export type { BodyPlan } from './plan-body.js';
export type { ParamLocation, ParamPlan } from './plan-parameters.js';

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
  /** Parts of the input schema described by their type only, to stay within `MAX_SCHEMA_ENTRIES`. */
  cut?: number;
}

const LOCATION_ORDER: ParamLocation[] = ['path', 'query', 'header', 'cookie'];

/**
 * Turns one operation into its request plan and input/output schemas. Throws when it cannot.
 * `repeated`: sentences left out of parameter descriptions (see `repeatedParameterSentences`).
 */
export function planOperation(
  info: OperationInfo,
  document: Json,
  version: SpecVersion,
  converter: SchemaConverter,
  repeated: ReadonlySet<string> = new Set(),
): PlannedOperation {
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
      const arg = (nameCount.get(name) ?? 0) > 1 && location !== 'path' ? `${name}__${location}` : name;
      const { schema, json } = parameterSchema(parameter, version);
      const converted = converter.convertInline(schema, 'request');
      const description = parameterDescription(parameter.description, location, repeated);
      if (description) converted.description = description;
      if (parameter.deprecated === true) converted.deprecated = true;
      setOwn(properties, arg, converted);
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
      ? swaggerBodyPlan(swaggerBody, info, document, bodyArg, converter)
      : openApiBodyPlan(info, document, bodyArg, converter);
  if (body) {
    properties[bodyArg] = body.schema;
    if (body.plan.required) required.push(bodyArg);
  }

  const root: JsonSchema = { type: 'object', properties };
  if (required.length > 0) root.required = required;
  root.additionalProperties = false;
  const definition = (name: string) => converter.definition(name, 'request');
  const bounded = listedInputSchema(root, definition, 'parameters');
  if (body?.plan.kind === 'multipart') {
    body.plan.binaryFields = binaryFields(properties[bodyArg] as JsonSchema, definition);
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

  const planned: PlannedOperation = { plan, inputSchema: bounded.schema };
  if (bounded.cut > 0) planned.cut = bounded.cut;
  if (success.jsonSchema !== undefined) {
    const outputSchema = planOutput(success.jsonSchema, document, version);
    if (outputSchema) planned.outputSchema = outputSchema;
  }
  return planned;
}

function securityOf(info: OperationInfo, document: Json): Json[] {
  const security = Array.isArray(info.operation.security) ? info.operation.security : document.security;
  return Array.isArray(security) ? security.filter(isObject) : [];
}

/**
 * A parameter's description as a tool lists it: without the spec's `repeated` sentences, without
 * advice to encode a value the bridge encodes, within its budget. Made once per text, location kind
 * and spec: GitHub's ~3,500 parameters share ~300 descriptions (~9 ms of a start otherwise).
 */
function parameterDescription(
  text: unknown,
  location: ParamLocation,
  repeated: ReadonlySet<string>,
): string | undefined {
  if (typeof text !== 'string') return propertyDescription(text);
  // Path, query and cookie values are percent-encoded when sent (build-request.ts); header values
  // are sent as given, so advice to encode one still holds.
  const encoded = location !== 'header';
  const describe = () => {
    const kept = dropRepeatedSentences(text, repeated);
    return propertyDescription(encoded ? dropEncodingAdvice(kept) : kept);
  };
  // Without repeated sentences (a spec of few operations) there is little to save, and no spec to
  // scope the memo to.
  if (repeated.size === 0) return describe();
  let made = describedOf.get(repeated);
  if (!made) {
    made = new Map();
    describedOf.set(repeated, made);
  }
  const key = `${encoded ? 'e' : 'h'}${text}`;
  if (made.has(key)) return made.get(key);
  const description = describe();
  made.set(key, description);
  return description;
}
const describedOf = new WeakMap<ReadonlySet<string>, Map<string, string | undefined>>();
