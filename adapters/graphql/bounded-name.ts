import { BridgeError, quote } from '../../src/index.js';

/**
 * The longest GraphQL name (of a field, an argument, an input field, an enum value, a type) a tool
 * is built from. GraphQL bounds none, the schema is built as the endpoint sends it, and each name
 * becomes part of a tool's `tools/list` entry (its title, a key of its input schema, a value of an
 * enum): one name of 300,000 characters made a listing of 600 KB. Real names are a few dozen long.
 */
export const MAX_NAME_LENGTH = 256;

/**
 * `name` when it is within `MAX_NAME_LENGTH`; otherwise throws, naming it cut, so that the tool
 * needing it is skipped with a warning. Cutting the name instead would serve a tool that sends
 * names the server does not know, and an enum left without its long values would refuse input
 * the server accepts.
 *
 * @example boundedName(arg.name, 'argument') // 'id', or throws 'the argument "xxx…" is named in 300000 characters, …'
 */
export function boundedName(name: string, what: string): string {
  if (name.length <= MAX_NAME_LENGTH) return name;
  throw new BridgeError(
    'invalid_input',
    `the ${what} ${quote(name)} is named in ${name.length} characters, more than the ${MAX_NAME_LENGTH} the bridge serves`,
  );
}
