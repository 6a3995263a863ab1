import { cutSchema } from './cut-schema.js';
import { BridgeError } from './errors.js';
import { listSome } from './list-some.js';
import { setOwn } from './plain-object.js';
import { clip } from './quote-input.js';
import { countWithin } from './schema-members.js';
import type { JsonSchema } from './tool.js';

/**
 * Most entries one tool's input schema lists: its subschemas (properties, items, branches, the
 * definitions it reaches; an empty `{}` is not counted) and enum values together. Real APIs stay
 * well inside it (GitHub's REST tools reach 253, Stripe's 944, GitHub's GraphQL mutations ~650),
 * while a small spec or GraphQL schema can make each of thousands of tools reach tens of thousands
 * (a 650 kB spec made a 600 MB tools/list; a 230 kB schema took 2 GB to convert).
 */
export const MAX_SCHEMA_ENTRIES = 2_000;

/** A tool's input schema within {@link MAX_SCHEMA_ENTRIES}, and how many of its parts were cut. */
export interface BoundedSchema {
  /** The schema, with `$defs` holding the definitions it reaches, by name. */
  schema: JsonSchema;
  /** Parts described by their type and a note instead of in full: 0 when everything fit. */
  cut: number;
}

/**
 * `root` (an object schema without `$defs`) with the definitions it reaches through
 * `#/$defs/NAME` references, listed within `max` entries. Entries are counted breadth first from
 * the top, so what lies nearest the arguments is kept exactly: a part whose members (properties,
 * items, branches, enum values, the definition it refers to) would pass the bound keeps only its
 * type and description, with a note saying so, and accepts any value of that type (the API still
 * checks it). A definition is counted where it is first reached. `definition` looks one up by name;
 * it may build it on demand, and what it throws is thrown.
 *
 * A looser part makes the whole looser only where nothing inverts it: under `oneOf`, `not` or
 * `if`, beside `unevaluatedProperties`/`unevaluatedItems` (which read what in-place parts
 * evaluated) or `maxContains`, a stub could refuse what the full schema accepted. When a cut falls
 * there, whole arguments are cut instead, the first that fit kept as they are. Returns undefined
 * when the top level alone (the arguments) passes the bound: such a tool cannot be described.
 *
 * @example boundSchema({ type: 'object', properties: { id: { type: 'string' } } }, (name) => undefined)
 */
export function boundSchema(
  root: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  max: number = MAX_SCHEMA_ENTRIES,
): BoundedSchema | undefined {
  const counted = countWithin(root, definition, max);
  if (counted !== 'over') {
    const { reached } = counted;
    if (reached.length === 0) return { schema: root, cut: 0 };
    const defs: Record<string, JsonSchema> = {};
    for (const name of reached.sort()) setOwn(defs, name, definition(name) as JsonSchema);
    return { schema: { ...root, $defs: defs }, cut: 0 };
  }
  return cutSchema(root, definition, max);
}

/**
 * `boundSchema`'s listing of a tool's input schema, or a `BridgeError` saying the tool cannot be
 * served when its `what` (arguments, parameters) alone pass the bound.
 */
export function listedInputSchema(
  root: JsonSchema,
  definition: (name: string) => JsonSchema | undefined,
  what: string,
): BoundedSchema {
  const bounded = boundSchema(root, definition);
  if (bounded) return bounded;
  throw new BridgeError(
    'invalid_input',
    `its ${what} alone pass the ${MAX_SCHEMA_ENTRIES.toLocaleString('en-US')} entries a tool's input schema may list`,
  );
}

/**
 * The warning for the tools whose input schemas `boundSchema` cut, naming the first ten (a schema
 * can make thousands of them so); undefined when there are none. `what` names one tool's origin.
 *
 * @example cutSchemasWarning('mutation field', ['createThing'])
 */
export function cutSchemasWarning(what: string, names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  const listed = listSome(names, { most: 10, show: (name) => clip(name), more: (n) => `and ${n} more` });
  const one = names.length === 1;
  return `${one ? `the ${what}` : `${names.length.toLocaleString('en-US')} ${what}s`} ${listed.join(', ')}: ${one ? 'its input schema lists' : 'their input schemas list'} the first ${MAX_SCHEMA_ENTRIES.toLocaleString('en-US')} entries nearest the top (arguments, properties, enum values); deeper parts are described by their type only, and the API checks them`;
}
