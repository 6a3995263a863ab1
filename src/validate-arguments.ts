import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { listSome } from './list-some.js';
import { compilePattern, SlowPatternError, withMatchBudget } from './match-pattern.js';
import { namesProto, PROTO_STAND_IN, pointerToKey, renameKeys, spellProtoKeys } from './proto-key.js';
import { clip } from './quote-input.js';
import type { JsonSchema } from './tool.js';

// Ajv and its formats are CommonJS and take ~50 ms to load: required on the first compile, not at
// start-up, so a server answers `initialize` and `tools/list` sooner.
const require = createRequire(import.meta.url);

/** One reason why arguments do not fit a schema, located by a JSON pointer into the arguments. */
export interface Violation {
  /** `/owner`, `/items/2/id`, or `` for the arguments object itself. */
  path: string;
  message: string;
}

/**
 * Checks arguments against a tool's input schema: `[]` when they fit. Lossless slips of a model
 * are corrected in place first (see `coerceLosslessly`), so the caller passes on the same object;
 * `beforeChange` runs once before anything in them changes.
 */
export type ArgumentValidator = (args: unknown, beforeChange?: () => void) => Violation[];

let shared: Ajv2020 | undefined;

function ajv(): Ajv2020 {
  if (!shared) {
    const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    const formats = require('ajv-formats') as { default: (instance: Ajv2020) => unknown };
    shared = new Ajv({
      allErrors: true,
      strict: false,
      // Compiled schemas stay out of Ajv's shared registry, so two tools may use the same `$id`.
      addUsedSchema: false,
      validateSchema: false,
      // Real specs use vendor formats (`int32`, `repo.nwo`); unknown formats are accepted, not logged.
      logger: false,
      // `properties`, `required` and `dependentRequired` look at own members only: without it a
      // left-out optional `constructor` is checked as `Object`, and a required `toString` is present.
      ownProperties: true,
      // A spec's patterns may backtrack without end: matched within a time bound (match-pattern.ts).
      code: { regExp: compilePattern },
    });
    formats.default(shared);
  }
  return shared;
}

/**
 * Compiles `schema` into a validator (Ajv, JSON Schema 2020-12). Throws when the schema does not
 * compile; callers compile lazily, on a tool's first call, so one bad schema costs nothing up front.
 */
export function compileValidator(schema: JsonSchema): ArgumentValidator {
  const validate = namesProto(schema) ? withProtoKeys(schema) : compilePlain(schema);
  return (args, beforeChange) => {
    try {
      return withMatchBudget(() => validate(args, beforeChange));
    } catch (error) {
      // The check recurses with the arguments' nesting (a recursive schema, a schema naming
      // `__proto__`): arguments nested deeper than the stack allows are the caller's to fix.
      if (error instanceof RangeError) return [{ path: '', message: 'are nested too deeply to be checked' }];
      // A value the schema's pattern backtracks on without end: refused, the pattern named.
      if (error instanceof SlowPatternError) return [{ path: '', message: error.message }];
      throw error;
    }
  };
}

function compilePlain(schema: JsonSchema): ArgumentValidator {
  const validate: ValidateFunction = ajv().compile(schema);
  return (args, beforeChange) => {
    if (validate(args)) return [];
    beforeChange?.();
    // Each round fixes what the errors point at; a fix can reveal the next (["5"] → [5]).
    for (let round = 0; round < MAX_COERCION_ROUNDS; round++) {
      if (!coerceLosslessly(args, validate.errors ?? [])) break;
      if (validate(args)) return [];
    }
    return (validate.errors ?? []).map(toViolation);
  };
}

// A schema naming a `__proto__` property, which Ajv would never accept: see proto-key.ts. Compiled
// plain once spelled: `"__proto__"` left as data (an `enum` value, a description) must not recurse.
function withProtoKeys(schema: JsonSchema): ArgumentValidator {
  const check = compilePlain(spellProtoKeys(schema) as JsonSchema);
  const unspell = (text: string) => text.replaceAll(PROTO_STAND_IN, '__proto__');
  return (args, beforeChange) => {
    // The names are swapped in place below: whoever must see the arguments as sent sees them first.
    beforeChange?.();
    // Spelled by the caller, the stand-in would be checked and sent as `__proto__` (or overwrite
    // one while the names are swapped): refused, wherever it is.
    const spelled = pointerToKey(args, PROTO_STAND_IN);
    if (spelled !== undefined) {
      return [{ path: spelled, message: 'must not have a property named "__proto__\\u0000"' }];
    }
    renameKeys(args, '__proto__', PROTO_STAND_IN);
    try {
      return check(args).map(({ path, message }) => ({ path: unspell(path), message: unspell(message) }));
    } finally {
      renameKeys(args, PROTO_STAND_IN, '__proto__');
    }
  };
}

const MAX_COERCION_ROUNDS = 4;
const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;
const NUMBER_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/**
 * Applies, in place, the conversions that lose nothing where a `type` error says a value has the
 * wrong type: a numeric string where an integer or number is expected (`"42"` → `42`), `"true"` /
 * `"false"` where a boolean is, and a single value where an array is expected (`"HEAD"` →
 * `["HEAD"]`). Models make exactly these slips; the schema clients see keeps the real types. A
 * number where a string is expected is not converted: `1.10` would come back as `"1.1"`.
 * Returns whether anything changed.
 */
export function coerceLosslessly(args: unknown, errors: readonly ErrorObject[]): boolean {
  let changed = false;
  for (const error of errors) {
    if (error.keyword !== 'type' || error.instancePath === '') continue;
    const expected = [(error.params as { type: string | string[] }).type].flat();
    const segments = error.instancePath.split('/').slice(1).map(unescapePointer);
    const key = segments.pop() as string;
    const parent = segments.reduce<unknown>(
      (node, segment) => (isContainer(node) && Object.hasOwn(node, segment) ? node[segment] : undefined),
      args,
    );
    if (!isContainer(parent) || !Object.hasOwn(parent, key)) continue;
    const value = parent[key];
    const next = losslessValue(value, expected);
    if (next !== undefined) {
      parent[key] = next;
      changed = true;
    }
  }
  return changed;
}

function losslessValue(value: unknown, expected: readonly string[]): unknown {
  if (typeof value === 'string') {
    const text = value.trim();
    if (expected.includes('integer') && INTEGER_TEXT.test(text) && Number.isSafeInteger(Number(text))) {
      return Number(text);
    }
    if (expected.includes('number') && NUMBER_TEXT.test(text) && Number.isFinite(Number(text))) {
      return Number(text);
    }
    if (expected.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  }
  if (expected.includes('array') && !Array.isArray(value) && value !== null && value !== undefined)
    return [value];
  return undefined;
}

function isContainer(node: unknown): node is Record<string, unknown> {
  return typeof node === 'object' && node !== null;
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * Formats violations as lines a model can act on: at most `MAX_LISTED_VIOLATIONS` of them, and
 * how many more there are (see `listViolations`).
 */
export function formatViolations(toolName: string, violations: readonly Violation[]): string {
  const lines = listViolations(violations, {
    show: (path, message) => `- ${path || '(arguments)'}: ${message}`,
    more: (count) => `- and ${count} more, not listed`,
  });
  return `Invalid arguments for tool "${toolName}":\n${lines.join('\n')}\nFix these and call the tool again.`;
}

/**
 * The lines of a message listing violations, each shown by `show` from its cut path and its
 * message, then `more` for the rest. A path is made of the caller's property names, as long as it
 * likes, and every property a schema refuses is a violation of its own: a message listing them all
 * would carry as many bytes as the arguments. So at most `MAX_LISTED_VIOLATIONS` are listed, each
 * path cut (see quote-input.ts).
 */
export function listViolations(
  violations: readonly Violation[],
  { show, more }: { show: (path: string, message: string) => string; more: (count: number) => string },
): string[] {
  return listSome(violations, {
    most: MAX_LISTED_VIOLATIONS,
    show: (violation) => show(clip(violation.path), violation.message),
    more,
  });
}

/** Violations one message lists; a model fixes them and hears of the rest on its next call. */
const MAX_LISTED_VIOLATIONS = 20;

function toViolation(error: ErrorObject): Violation {
  const params = error.params as Record<string, unknown>;
  let path = error.instancePath;
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'required') {
    path = `${path}/${String(params.missingProperty)}`;
    message = 'is required';
  } else if (error.keyword === 'additionalProperties') {
    path = `${path}/${String(params.additionalProperty)}`;
    message = 'is not an allowed property';
  } else if (error.keyword === 'enum') {
    message = `must be one of ${JSON.stringify(params.allowedValues)}`;
  } else if (error.keyword === 'type') {
    message = `must be ${naturalList([params.type].flat().map((type) => TYPE_NAMES[String(type)] ?? String(type)))}`;
  } else if (error.keyword === 'const') {
    message = `must be ${JSON.stringify(params.allowedValue)}`;
  } else if (error.keyword in BOUNDS) {
    message = `must be ${BOUNDS[error.keyword]} ${String(params.limit)}`;
  } else if (error.keyword in COUNTS) {
    const [bound, one, many] = COUNTS[error.keyword] as [string, string, string];
    message = `must have ${bound} ${String(params.limit)} ${params.limit === 1 ? one : many}`;
  } else if (error.keyword === 'format') {
    message = `must be a valid ${String(params.format)}`;
  } else if (error.keyword === 'pattern') {
    message = `must match the pattern ${String(params.pattern)}`;
  }
  return { path, message };
}

// "must be string,null" reads as "must be a string or null".
const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};
const BOUNDS: Record<string, string> = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'greater than',
  exclusiveMaximum: 'less than',
};
const COUNTS: Record<string, [string, string, string]> = {
  minLength: ['at least', 'character', 'characters'],
  maxLength: ['at most', 'character', 'characters'],
  minItems: ['at least', 'item', 'items'],
  maxItems: ['at most', 'item', 'items'],
  minProperties: ['at least', 'property', 'properties'],
  maxProperties: ['at most', 'property', 'properties'],
};

function naturalList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
