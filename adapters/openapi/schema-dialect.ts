import type { JsonSchema } from '../../src/index.js';
import type { SpecVersion } from './load-document.js';
import { isObject, type Json } from './resolve-ref.js';

const ANY_TYPE = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/**
 * Rewrites, in place, the keywords of an OpenAPI 3.0 / Swagger schema (`input`, as written) that
 * JSON Schema 2020-12 spells differently in its converted copy `out`, and fills in what strict
 * clients insist on: a type everywhere, `items` on every array.
 */
export function applyDialect(input: Json, out: JsonSchema, version: SpecVersion): void {
  if (version !== 'openapi31') {
    if (out.exclusiveMinimum === true && typeof out.minimum === 'number') {
      out.exclusiveMinimum = out.minimum;
      delete out.minimum;
    } else if (typeof out.exclusiveMinimum === 'boolean') delete out.exclusiveMinimum;
    if (out.exclusiveMaximum === true && typeof out.maximum === 'number') {
      out.exclusiveMaximum = out.maximum;
      delete out.maximum;
    } else if (typeof out.exclusiveMaximum === 'boolean') delete out.exclusiveMaximum;
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
  if (typeof out.pattern === 'string' && !isUnicodeRegExp(out.pattern)) {
    // JSON Schema patterns are ECMA-262 with the `u` flag: `\-` or `\p{Graph}`, fine in Java or
    // Python, make validators refuse the whole schema. Keep the pattern as prose instead.
    const note = `Pattern (not checked here): ${out.pattern}`;
    out.description = typeof out.description === 'string' ? `${out.description} ${note}` : note;
    delete out.pattern;
  }
  if (isObject(out.patternProperties)) {
    for (const key of Object.keys(out.patternProperties)) {
      if (!isUnicodeRegExp(key)) delete out.patternProperties[key];
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

const regExpValidity = new Map<string, boolean>();

function isUnicodeRegExp(pattern: string): boolean {
  let valid = regExpValidity.get(pattern);
  if (valid === undefined) {
    try {
      new RegExp(pattern, 'u');
      valid = true;
    } catch {
      valid = false;
    }
    regExpValidity.set(pattern, valid);
  }
  return valid;
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
