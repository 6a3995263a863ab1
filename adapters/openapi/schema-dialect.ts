import {
  BridgeError,
  compileValidator,
  describeError,
  isSchemaPattern,
  type JsonSchema,
} from '../../src/index.js';
import { isObject, type Json, setOwn } from './resolve-ref.js';

/** What `applyDialect` needs besides the schema: the spec's generation and a way to convert subschemas. */
export interface DialectContext {
  /** Converts a subschema found under a keyword the converter does not walk (`dependencies`). */
  convert(schema: unknown): JsonSchema;
  /**
   * Dialects other than 2020-12 declared by `$schema` (or the 3.1 `jsonSchemaDialect`) so far.
   * Their keywords are rewritten where 2020-12 spells them differently; tools built from them are
   * compiled before they are served (see `checkCompiles`), since a dialect can differ in more ways.
   */
  foreign: Set<string>;
}

// The dialects 3.1 documents mean by default: JSON Schema 2020-12 and the OpenAPI base vocabulary.
const NATIVE_DIALECT =
  /^https?:\/\/(json-schema\.org\/draft\/2020-12\/schema|spec\.openapis\.org\/oas\/3\.1\/dialect\/base)#?$/;

/** Records `dialect` when it is not 2020-12; returns whether it was foreign. */
export function noteDialect(dialect: unknown, context: Pick<DialectContext, 'foreign'>): boolean {
  if (typeof dialect !== 'string' || NATIVE_DIALECT.test(dialect)) return false;
  context.foreign.add(dialect);
  return true;
}

const ANY_TYPE = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/**
 * Rewrites, in place, the keywords of an OpenAPI 3.0 / Swagger schema (`input`, as written) that
 * JSON Schema 2020-12 spells differently in its converted copy `out`, and fills in what strict
 * clients insist on: a type everywhere, `items` on every array.
 */
export function applyDialect(input: Json, out: JsonSchema, context: DialectContext): void {
  noteDialect(input.$schema, context);
  // Draft 4 (Swagger, OpenAPI 3.0, or a 3.1 schema declaring an older `$schema`) writes these as
  // booleans beside minimum/maximum; 2020-12 has only the numeric form, and no valid 2020-12
  // schema holds a boolean here, so the rewrite is safe whatever the document's version.
  if (out.exclusiveMinimum === true && typeof out.minimum === 'number') {
    out.exclusiveMinimum = out.minimum;
    delete out.minimum;
  } else if (typeof out.exclusiveMinimum === 'boolean') delete out.exclusiveMinimum;
  if (out.exclusiveMaximum === true && typeof out.maximum === 'number') {
    out.exclusiveMaximum = out.maximum;
    delete out.maximum;
  } else if (typeof out.exclusiveMaximum === 'boolean') delete out.exclusiveMaximum;
  // Drafts 4-7: `dependencies` is 2019-09's dependentRequired (lists) and dependentSchemas (schemas).
  if (isObject(input.dependencies)) {
    delete out.dependencies;
    for (const [name, value] of Object.entries(input.dependencies)) {
      const key = Array.isArray(value) ? 'dependentRequired' : 'dependentSchemas';
      if (!isObject(out[key])) out[key] = {};
      setOwn(out[key] as Json, name, Array.isArray(value) ? value : context.convert(value));
    }
  }
  // Drafts 4-2019: `additionalItems` after a tuple is 2020-12's `items` after `prefixItems`.
  if (out.additionalItems !== undefined) {
    if (Array.isArray(input.items)) out.items = out.additionalItems;
    delete out.additionalItems;
  }
  if (out.type === 'file') {
    out.type = 'string';
    out.contentEncoding = 'base64';
  } else if (out.format === 'binary' && (out.type === 'string' || out.type === undefined)) {
    out.type = 'string';
    out.contentEncoding = 'base64';
    delete out.format;
  }
  if (input.example !== undefined && out.examples === undefined) out.examples = [input.example];
  if (typeof out.pattern === 'string' && !isSchemaPattern(out.pattern)) {
    // JSON Schema patterns are ECMA-262 with the `u` flag: `\-` or `\p{Graph}`, fine in Java or
    // Python, make validators refuse the whole schema. Keep the pattern as prose instead.
    const note = `Pattern (not checked here): ${out.pattern}`;
    out.description = typeof out.description === 'string' ? `${out.description} ${note}` : note;
    delete out.pattern;
  }
  if (isObject(out.patternProperties)) {
    for (const key of Object.keys(out.patternProperties)) {
      if (!isSchemaPattern(key)) delete out.patternProperties[key];
    }
  }
  if (isObject(input.discriminator) && typeof input.discriminator.propertyName === 'string') {
    const note = `Variants are told apart by the "${input.discriminator.propertyName}" property.`;
    out.description = typeof out.description === 'string' ? `${out.description} ${note}` : note;
  }
  const hasComposition = out.allOf !== undefined || out.anyOf !== undefined || out.oneOf !== undefined;
  if (out.type === undefined && !hasComposition && out.$ref === undefined && out.not === undefined) {
    const inferred = inferType(out);
    if (inferred !== undefined) out.type = inferred;
  }
  if (out.type === 'array' && out.items === undefined && out.prefixItems === undefined) out.items = {};
  if (input.nullable === true || input['x-nullable'] === true) makeNullable(out);
}

function inferType(schema: JsonSchema): unknown {
  if (schema.properties !== undefined || schema.additionalProperties !== undefined) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const types = [...new Set(schema.enum.map(jsonType))];
    return types.length === 1 ? types[0] : types;
  }
  if (schema.const !== undefined) return jsonType(schema.const);
  if (schema.pattern !== undefined || schema.minLength !== undefined || schema.maxLength !== undefined) {
    return 'string';
  }
  if (schema.minimum !== undefined || schema.maximum !== undefined || schema.multipleOf !== undefined) {
    return 'number';
  }
  if (typeof schema.format === 'string') return 'string';
  return ANY_TYPE;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function makeNullable(out: JsonSchema): void {
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type)) {
    if (!out.type.includes('null')) out.type = [...out.type, 'null'];
  } else {
    const copy = { ...out };
    for (const key of Object.keys(out)) delete out[key];
    out.anyOf = [copy, { type: 'null' }];
    return;
  }
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
}

/**
 * Throws when `schema` does not compile as JSON Schema 2020-12, naming the foreign dialects the
 * spec declared: such a tool is skipped with a warning rather than served with its arguments
 * unchecked (the registry cannot validate against a schema Ajv refuses).
 */
export function checkCompiles(schema: JsonSchema, foreign: ReadonlySet<string>): void {
  try {
    compileValidator(schema);
  } catch (error) {
    throw new BridgeError(
      'invalid_input',
      `its input schema, written for ${[...foreign].join(', ')}, does not compile as JSON Schema 2020-12 after conversion (${describeError(error)}); it is not served, so that its arguments are never sent unchecked`,
      { cause: error },
    );
  }
}
