import {
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import {
  type BoundedSchema,
  BridgeError,
  clip,
  type JsonSchema,
  listedInputSchema,
  nestsDeeperThan,
  propertyDescription,
  refuseDeepSchema,
} from '../../src/index.js';
import { boundedName } from './bounded-name.js';
import type { ScalarMapping } from './options.js';

/** One argument or variable to describe: a name, a GraphQL input type, and what the schema says of it. */
export interface InputSlot {
  name: string;
  type: GraphQLInputType;
  description?: string | null | undefined;
  defaultValue?: unknown;
  deprecationReason?: string | null | undefined;
}

const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;
const JSON_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array', 'null']);
const ENUM_DESCRIPTION_LIMIT = 1_500;

/**
 * Turns GraphQL arguments or variables into the properties of one JSON Schema 2020-12 object.
 * Input objects go to `$defs` (shared, so recursive inputs are fine), non-null means required,
 * Int keeps its 32-bit bounds so models do not send 1234.0, custom scalars follow `scalars`.
 * Each input object and enum is converted once for all tools, and each tool lists what it reaches
 * within `MAX_SCHEMA_ENTRIES` (see `boundSchema`): a schema can make every one of thousands of
 * fields reach thousands of input objects, and copied per tool they took gigabytes.
 */
export class InputSchemaBuilder {
  readonly #scalars: Record<string, JsonSchema>;
  // Input objects and enums converted so far, by type name; and those that cannot be (a name too
  // long to serve), with the error each tool using them is skipped with.
  readonly #defs = new Map<string, JsonSchema>();
  readonly #enums = new Map<string, JsonSchema>();
  readonly #failed = new Map<string, Error>();

  constructor(scalars: Record<string, ScalarMapping> = {}) {
    this.#scalars = Object.fromEntries(
      Object.entries(scalars).map(([name, value]) => [name, scalarSchema(name, value)]),
    );
  }

  /**
   * The object schema for `slots`, with `extra` properties (e.g. `select`) appended, and how many
   * of its parts are cut to stay within `MAX_SCHEMA_ENTRIES`. Throws when a name it would carry (of
   * an argument, an input field, an enum value, a type) is too long to serve (see `boundedName`),
   * when the arguments alone pass the bound, or when the schema nests deeper than `MAX_JSON_DEPTH`.
   */
  objectSchema(slots: readonly InputSlot[], extra: Record<string, JsonSchema> = {}): BoundedSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const slot of slots) {
      properties[boundedName(slot.name, 'argument')] = this.#slot(slot);
      if (isNonNullType(slot.type) && slot.defaultValue === undefined) required.push(slot.name);
    }
    Object.assign(properties, extra);
    const schema: JsonSchema = { type: 'object', properties };
    if (required.length > 0) schema.required = required;
    schema.additionalProperties = false;
    // An input object that failed in another tool's conversion fails this one too, whichever
    // converted it first.
    const bounded = listedInputSchema(
      schema,
      (name) => {
        const failed = this.#failed.get(name);
        if (failed) throw failed;
        return this.#defs.get(name);
      },
      'arguments',
    );
    // Lists of lists nest as deep as a schema likes (an SDL file's `[[[…]]]`).
    refuseDeepSchema(bounded.schema);
    return bounded;
  }

  #slot(slot: InputSlot): JsonSchema {
    const schema = this.#type(slot.type);
    const annotated: JsonSchema = { ...schema };
    // Within a property's budget, as an OpenAPI parameter's: a schema's words can be of any length.
    const description = propertyDescription(
      [slot.description, slot.deprecationReason ? `Deprecated: ${slot.deprecationReason}` : '']
        .filter(Boolean)
        .join(' '),
    );
    if (description)
      annotated.description = annotated.description ? `${description} ${annotated.description}` : description;
    const value = jsonDefault(slot.defaultValue);
    if (value !== undefined) annotated.default = value;
    if (slot.deprecationReason) annotated.deprecated = true;
    return annotated;
  }

  #type(type: GraphQLInputType): JsonSchema {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isListType(inner)) return { type: 'array', items: this.#type(inner.ofType) };
    boundedName(inner.name, 'type');
    if (isScalarType(inner)) return this.#scalar(inner.name);
    if (isEnumType(inner)) return this.#enum(inner);
    if (isInputObjectType(inner)) return this.#inputObject(inner);
    throw new BridgeError('internal', `unexpected input type ${String(type)}`);
  }

  #scalar(name: string): JsonSchema {
    const mapped = this.#scalars[name];
    if (mapped) return { ...mapped };
    switch (name) {
      case 'Int':
        return { type: 'integer', minimum: INT_MIN, maximum: INT_MAX };
      case 'Float':
        return { type: 'number' };
      case 'Boolean':
        return { type: 'boolean' };
      case 'String':
      case 'ID':
        return { type: 'string' };
      default:
        return { type: 'string', description: `A ${name} (custom scalar), as a string.` };
    }
  }

  #inputObject(type: GraphQLInputObjectType): JsonSchema {
    const ref = { $ref: `#/$defs/${type.name}` };
    const failed = this.#failed.get(type.name);
    if (failed) throw failed;
    if (this.#defs.has(type.name)) return ref;
    const properties: Record<string, JsonSchema> = {};
    const schema: JsonSchema = { type: 'object', properties };
    // Registered before the fields are walked, so a recursive input refers to itself.
    this.#defs.set(type.name, schema);
    try {
      const description = propertyDescription(type.description);
      if (description) schema.description = description;
      const required: string[] = [];
      for (const field of Object.values(type.getFields())) {
        properties[boundedName(field.name, `field of ${type.name}`)] = this.#slot(field);
        if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(field.name);
      }
      if (required.length > 0) schema.required = required;
      schema.additionalProperties = false;
      // @oneOf inputs: exactly one field set (graphql-js 16.9+).
      if ((type as { isOneOf?: boolean }).isOneOf)
        Object.assign(schema, { minProperties: 1, maxProperties: 1 });
    } catch (error) {
      // Never listed half-built: a tool reaching it through another input already converted is
      // skipped with the same error (see `objectSchema`).
      this.#defs.delete(type.name);
      this.#failed.set(type.name, error as Error);
      throw error;
    }
    return ref;
  }

  #enum(type: GraphQLEnumType): JsonSchema {
    const failed = this.#failed.get(type.name);
    if (failed) throw failed;
    let schema = this.#enums.get(type.name);
    if (!schema) {
      try {
        schema = enumSchema(type);
      } catch (error) {
        this.#failed.set(type.name, error as Error);
        throw error;
      }
      this.#enums.set(type.name, schema);
    }
    return schema;
  }
}

function enumSchema(type: GraphQLEnumType): JsonSchema {
  // Deprecated values are left out, unless that would leave none (GitHub has such enums).
  const current = type.getValues().filter((value) => !value.deprecationReason);
  const values = current.length > 0 ? current : type.getValues();
  for (const value of values) boundedName(value.name, `value of ${type.name}`);
  const schema: JsonSchema = { type: 'string', enum: values.map((value) => value.name) };
  const described = values.filter((value) => value.description);
  const lines = [
    type.description?.trim(),
    ...described.map((value) => `${value.name}: ${value.description?.trim()}`),
  ];
  let description = lines.filter(Boolean).join('\n');
  description = clip(description, ENUM_DESCRIPTION_LIMIT);
  if (description) schema.description = description;
  return schema;
}

/** `--scalar` values: a JSON type, `any`, a string format, or a JSON Schema object. */
function scalarSchema(name: string, mapping: ScalarMapping): JsonSchema {
  if (typeof mapping === 'object') return mapping;
  const description = `A ${name} (custom scalar).`;
  if (mapping === 'any') return { description: `${description} Any JSON value.` };
  if (JSON_TYPES.has(mapping)) return { type: mapping, description };
  return { type: 'string', format: mapping, description };
}

function jsonDefault(value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  // A custom scalar's default is any literal, nested as deep as the schema likes: deeper than the
  // bridge passes JSON on, it would fail a client's parser on the whole tools/list. Left out, the
  // server still applies it (a call sends only the arguments given).
  if (nestsDeeperThan(value)) return undefined;
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    return undefined;
  }
}
