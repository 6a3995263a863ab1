import type { JsonSchema } from '../../src/index.js';
import type { CommandSpec, OptionSpec, PathKind } from './cli-spec.js';

/** Names the adapter itself uses in every input schema; options with these names are renamed. */
export const RESERVED = new Set(['cwd', 'timeout', 'stdin']);

/** The property an option is offered under: its name, or `option_<name>` when that is reserved. */
export function propertyOf(option: OptionSpec): string {
  return RESERVED.has(option.name) ? `option_${option.name}` : option.name;
}

/**
 * The JSON Schema of one subcommand's arguments: a typed property per option (booleans,
 * strings, integers, enums, arrays for repeatable ones), one string array per positional kind,
 * then `cwd`, `timeout` and, when the command reads input, `stdin`. Unknown properties are refused,
 * so only options the schema names can reach the command line.
 */
export function buildInputSchema(
  command: CommandSpec,
  options: OptionSpec[],
  limits: { defaultTimeoutMs: number; maxTimeoutMs: number; roots: string[] },
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const option of options) properties[propertyOf(option)] = optionSchema(option);
  for (const positional of command.positionals) {
    if (properties[positional.name]) continue;
    const item: JsonSchema = positional.pattern
      ? { type: 'string', pattern: positional.pattern }
      : { type: 'string' };
    properties[positional.name] = {
      type: 'array',
      items: positional.path ? pathSchema(item, positional.path) : item,
      description: positional.path
        ? `${positional.description} ${OPERAND_NOTES[positional.path]}`
        : positional.description,
      ...(positional.required ? { minItems: 1 } : {}),
      ...(positional.maxItems ? { maxItems: positional.maxItems } : {}),
    };
    if (positional.required) required.push(positional.name);
  }
  properties.cwd = {
    type: 'string',
    description: `Working directory inside ${limits.roots.join(', ')} (default ${limits.roots[0]}).`,
  };
  properties.timeout = {
    type: 'integer',
    minimum: 1,
    maximum: limits.maxTimeoutMs,
    description: `Milliseconds before the command and its children are killed (default ${limits.defaultTimeoutMs}).`,
  };
  if (command.stdin) properties.stdin = { type: 'string', description: 'Text fed to the standard input.' };
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/**
 * Said of every path-valued argument, so the model knows why an outside path is refused. An
 * option's value may be `-` (standard input or output, where the program reads it so); an operand
 * may not, as no operand may start with `-`.
 */
const OPTION_NOTES: Record<PathKind, string> = {
  path: '(A path inside the roots; "-" for standard input/output.)',
  location: '(A URL, or a path inside the roots.)',
};
const OPERAND_NOTES: Record<PathKind, string> = {
  path: '(A path inside the roots.)',
  location: '(A URL, or a path inside the roots.)',
};

/**
 * Marks a string as a file or directory with the vendor keyword `x-path` (`path`, or `location`
 * for a path or URL): JSON Schema has no path format, and an unknown `format` breaks strict clients.
 */
function pathSchema(schema: JsonSchema, kind: PathKind): JsonSchema {
  return { ...schema, 'x-path': kind };
}

/** The schema of one option's property (see `buildInputSchema`). */
export function optionSchema(option: OptionSpec): JsonSchema {
  // Descriptions stay short: a git tool list carries thousands of them.
  const notes: string[] = [];
  if (option.description) notes.push(option.description);
  if (option.flag !== `--${option.name}`) notes.push(`(${option.flag})`);
  if (option.kind === 'boolean' && option.offFlag) notes.push(`(false: ${option.offFlag})`);
  else if (option.kind === 'boolean' && option.negatable) notes.push(`(false: --no-${option.name})`);
  if (option.optionalValue) notes.push(`("" for ${option.flag} alone)`);
  if (option.path) notes.push(OPTION_NOTES[option.path]);
  const described = (schema: JsonSchema): JsonSchema =>
    notes.length > 0 ? { ...schema, description: notes.join(' ') } : schema;
  let value: JsonSchema;
  switch (option.kind) {
    case 'boolean':
      return described({ type: 'boolean' });
    case 'integer':
      value = { type: 'integer' };
      break;
    case 'number':
      value = { type: 'number' };
      break;
    case 'enum':
      value = { type: 'string', enum: option.values ?? [] };
      break;
    default:
      value = option.path ? pathSchema({ type: 'string' }, option.path) : { type: 'string' };
      if (option.pattern) value.pattern = option.pattern;
  }
  if (option.valueCount === 2) {
    // `--arg NAME VALUE`: the two values in order.
    value = { type: 'array', items: value, minItems: 2, maxItems: 2 };
  }
  return described(option.repeatable ? { type: 'array', items: value } : value);
}
