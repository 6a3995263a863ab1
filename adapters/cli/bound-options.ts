import { BridgeError, boundSchema, type JsonSchema, MAX_SCHEMA_ENTRIES } from '../../src/index.js';
import { buildInputSchema, optionSchema } from './build-input-schema.js';
import type { CommandSpec, OptionSpec } from './cli-spec.js';

type Limits = Parameters<typeof buildInputSchema>[2];

/** A command's input schema within the bound, the options it offers, and those it leaves out. */
export interface BoundedOptions {
  schema: JsonSchema;
  options: OptionSpec[];
  left: OptionSpec[];
}

/**
 * The input schema of a command within the entries any tool's input schema may list (the bound of
 * OpenAPI and GraphQL tools, see bound-schema.ts): a help text can list thousands of options, or
 * one option thousands of choices, and an overlay can add any number. Options are kept in their
 * order while they fit; one that would pass the bound is left out whole, never loosened (an
 * option's `pattern` is a check). Positionals, `cwd`, `timeout` and `stdin` always stay: a command
 * whose positionals alone pass the bound cannot be served.
 */
export function boundOptions(command: CommandSpec, options: OptionSpec[], limits: Limits): BoundedOptions {
  const full = buildInputSchema(command, options, limits);
  if (fits(full)) return { schema: full, options, left: [] };
  const base = buildInputSchema(command, [], limits);
  if (!fits(base)) {
    throw new BridgeError(
      'invalid_input',
      `"${command.path.join(' ')}": its positionals alone pass the ${MAX_SCHEMA_ENTRIES.toLocaleString('en-US')} entries a tool's input schema may list`,
    );
  }
  // Each option's entries summed, which is fast where counting the whole schema per option was
  // not (3,000 options took 5 s); the schema built is then checked as boundSchema counts it.
  const kept: OptionSpec[] = [];
  const left: OptionSpec[] = [];
  let used =
    1 +
    Object.values(base.properties as Record<string, JsonSchema>).reduce(
      (sum, property) => sum + entriesOf(property),
      0,
    );
  for (const option of options) {
    const cost = entriesOf(optionSchema(option));
    if (used + cost <= MAX_SCHEMA_ENTRIES) {
      kept.push(option);
      used += cost;
    } else left.push(option);
  }
  // Built again for the order clients see (options first), and checked as built.
  let schema = buildInputSchema(command, kept, limits);
  while (!fits(schema) && kept.length > 0) {
    left.unshift(kept.pop() as OptionSpec);
    schema = buildInputSchema(command, kept, limits);
  }
  return { schema, options: kept, left };
}

// What one property of a CLI tool's schema adds to boundSchema's count: itself, its enum values
// and its items (an array option's value), the only members these properties have.
function entriesOf(schema: JsonSchema): number {
  let count = 1;
  if (Array.isArray(schema.enum)) count += schema.enum.length;
  const items = schema.items;
  if (items !== null && typeof items === 'object' && !Array.isArray(items))
    count += entriesOf(items as JsonSchema);
  return count;
}

function fits(schema: JsonSchema): boolean {
  return boundSchema(schema, () => undefined)?.cut === 0;
}
