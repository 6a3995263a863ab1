import {
  type JsonSchema,
  propertyDescription,
  SCHEMA_KEYS,
  SCHEMA_LIST_KEYS,
  SCHEMA_MAP_KEYS,
} from '../../src/index.js';
import type { SpecVersion } from './load-document.js';
import { isObject, type Json, resolvePointer, setOwn } from './resolve-ref.js';
import { applyDialect, type DialectContext, noteDialect } from './schema-dialect.js';

/** Requests leave out `readOnly` properties; responses leave out `writeOnly` ones. */
export type Direction = 'request' | 'response';

/** OpenAPI-only keywords that are not JSON Schema, or that the bridge rewrites. */
const DROPPED = new Set([
  'nullable',
  'x-nullable',
  'discriminator',
  'xml',
  'externalDocs',
  'example',
  '$schema',
  '$id',
  'id',
  'collectionFormat',
  // An annotation only, and mostly the component's or property's name again ("Repository Rule",
  // "creation" beside `"type": {"enum": ["creation"]}`): GitHub's input schemas spent 5.9 kB on it.
  // A tool's own title is the operation's, set elsewhere.
  'title',
]);

/**
 * Converts OpenAPI schemas (Swagger 2.0, 3.0 dialect, 3.1) to JSON Schema 2020-12. A `$ref` stays
 * a `$ref`, rewritten to `#/$defs/Name`, so circular schemas stay finite and shared components
 * are written once per tool. Each referenced component is converted once per direction for the
 * whole spec (GitHub's spec references the same few hundred components from 1,000+ operations).
 */
export class SchemaConverter {
  readonly #document: Json;
  readonly #version: SpecVersion;
  readonly #names = new Map<string, string>();
  readonly #pointers = new Map<string, string>();
  readonly #flags = new Map<string, { readOnly: boolean; writeOnly: boolean }>();
  readonly #taken = new Set<string>();
  readonly #cache: Record<Direction, Map<string, JsonSchema>> = { request: new Map(), response: new Map() };
  readonly #inline: Record<Direction, WeakMap<object, JsonSchema>> = {
    request: new WeakMap(),
    response: new WeakMap(),
  };

  /** Dialects other than 2020-12 the converted schemas declared (see `DialectContext.foreign`). */
  readonly foreignDialects = new Set<string>();

  constructor(document: Json, version: SpecVersion) {
    this.#document = document;
    this.#version = version;
    if (version === 'openapi31') noteDialect(document.jsonSchemaDialect, { foreign: this.foreignDialects });
  }

  /**
   * The converted component that `#/$defs/NAME` in this converter's schemas refers to (see
   * `defName`), converted on first use; undefined for a name it never gave.
   */
  definition(name: string, direction: Direction): JsonSchema | undefined {
    const pointer = this.#pointers.get(name);
    return pointer === undefined ? undefined : this.#component(pointer, direction);
  }

  /** The `$defs` key of a referenced pointer: the component's own name when it is free. */
  defName(pointer: string): string {
    let name = this.#names.get(pointer);
    if (name !== undefined) return name;
    const segments = pointer.split('/');
    const componentLike = /^#\/(components\/schemas|definitions)\/[^/]+$/.test(pointer);
    const raw = componentLike ? (segments.at(-1) ?? 'schema') : segments.slice(1).join('_');
    const base =
      decodeURIComponent(raw)
        .replace(/~1/g, '_')
        .replace(/~0/g, '_')
        .replace(/[^A-Za-z0-9_.-]+/g, '_') || 'schema';
    name = base;
    for (let n = 2; this.#taken.has(name); n++) name = `${base}_${n}`;
    this.#taken.add(name);
    this.#names.set(pointer, name);
    this.#pointers.set(name, pointer);
    return name;
  }

  /**
   * Converts one subschema. The result is the caller's to change at the top level: shared
   * parameters (GitHub's `owner`, `repo`, `per_page` appear in hundreds of operations) are
   * converted once and handed out as shallow copies.
   */
  convertInline(schema: unknown, direction: Direction): JsonSchema {
    if (!isObject(schema)) return this.#convert(schema, direction);
    const cache = this.#inline[direction];
    let converted = cache.get(schema);
    if (!converted) {
      converted = this.#convert(schema, direction);
      cache.set(schema, converted);
    }
    return { ...converted };
  }

  // A referenced component, converted once per direction (a reference inside it is only named).
  #component(pointer: string, direction: Direction): JsonSchema {
    const cache = this.#cache[direction];
    let converted = cache.get(pointer);
    if (!converted) {
      const target = resolvePointer(this.#document, pointer);
      converted = target === undefined ? {} : this.#convert(target, direction);
      cache.set(pointer, converted);
    }
    return converted;
  }

  #convert(input: unknown, direction: Direction): JsonSchema {
    if (input === true || input === undefined) return {};
    if (input === false) return { not: {} };
    if (!isObject(input)) return {};
    if (typeof input.$ref === 'string') {
      const ref = this.#ref(input.$ref);
      // OpenAPI 3.0 and Swagger ignore siblings of `$ref`; 3.1 (JSON Schema 2020-12) keeps them.
      if (this.#version !== 'openapi31') {
        const description = propertyDescription(input.description);
        return description ? { ...ref, description } : ref;
      }
      const rest = { ...input };
      delete rest.$ref;
      const converted = Object.keys(rest).length > 0 ? this.#convert(rest, direction) : {};
      // The sibling keywords were not a schema of their own: no type is inferred for them.
      if (rest.type === undefined) delete converted.type;
      return { ...ref, ...converted };
    }
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(input)) {
      if (DROPPED.has(key) || key.startsWith('x-')) continue;
      if ((SCHEMA_MAP_KEYS as readonly string[]).includes(key) && isObject(value)) {
        const map: Json = {};
        for (const [name, sub] of Object.entries(value)) {
          if (key === 'properties' && this.#hiddenIn(sub, direction)) continue;
          setOwn(map, name, this.#convert(sub, direction));
        }
        out[key === 'definitions' ? '$defs' : key] = map;
      } else if ((SCHEMA_LIST_KEYS as readonly string[]).includes(key) && Array.isArray(value)) {
        out[key] = value.map((sub) => this.#convert(sub, direction));
      } else if ((SCHEMA_KEYS as readonly string[]).includes(key)) {
        if (key === 'items' && Array.isArray(value)) {
          // Draft-4 tuple form (Swagger, 3.0) is `prefixItems` in 2020-12.
          out.prefixItems = value.map((sub) => this.#convert(sub, direction));
        } else if (typeof value === 'boolean') {
          out[key] = value;
        } else {
          out[key] = this.#convert(value, direction);
        }
      } else if (key === 'description') {
        const description = propertyDescription(value);
        if (description) out.description = description;
      } else if (key === 'required' && Array.isArray(value)) {
        out.required = value;
      } else {
        out[key] = value;
      }
    }
    const dialect: DialectContext = {
      convert: (sub) => this.#convert(sub, direction),
      foreign: this.foreignDialects,
    };
    applyDialect(input, out, dialect);
    if (Array.isArray(out.required) && isObject(out.properties)) {
      const present = out.properties;
      const required = (out.required as unknown[]).filter(
        (name) =>
          typeof name === 'string' &&
          (Object.hasOwn(present, name) || !this.#hiddenName(input, name, direction)),
      );
      if (required.length > 0) out.required = [...new Set(required)];
      else delete out.required;
    } else if (Array.isArray(out.required) && out.required.length === 0) {
      delete out.required;
    }
    return out;
  }

  #ref(ref: string): JsonSchema {
    if (!ref.startsWith('#')) return {};
    return { $ref: `#/$defs/${this.defName(ref)}` };
  }

  // A property hidden from this direction: readOnly in requests, writeOnly in responses.
  #hiddenIn(sub: unknown, direction: Direction): boolean {
    const key = direction === 'request' ? 'readOnly' : 'writeOnly';
    if (!isObject(sub)) return false;
    if (sub[key] === true) return true;
    if (typeof sub.$ref === 'string') {
      let flags = this.#flags.get(sub.$ref);
      if (!flags) {
        const target = resolvePointer(this.#document, sub.$ref);
        flags = {
          readOnly: isObject(target) && target.readOnly === true,
          writeOnly: isObject(target) && target.writeOnly === true,
        };
        this.#flags.set(sub.$ref, flags);
      }
      return flags[key];
    }
    return false;
  }

  #hiddenName(input: Json, name: string, direction: Direction): boolean {
    const properties = isObject(input.properties) ? input.properties : {};
    return Object.hasOwn(properties, name) && this.#hiddenIn(properties[name], direction);
  }
}
