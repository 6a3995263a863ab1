import { BridgeError } from './errors.js';

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${NAME}` in header values with the environment variable `NAME`, so secrets stay out of
 * command lines and config files. Header names are lower-cased. Throws an `invalid_input`
 * `BridgeError` naming the header and the variable when one is not set.
 *
 * @example expandHeaders({ Authorization: 'Bearer ${GITHUB_TOKEN}' })
 */
export function expandHeaders(headers: Record<string, string>): Record<string, string> {
  const expanded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    expanded[name.toLowerCase()] = value.replace(VARIABLE, (_, variable: string) => {
      const found = process.env[variable];
      if (found === undefined) {
        throw new BridgeError(
          'invalid_input',
          `header ${name} uses \${${variable}}, which is not set in the environment`,
        );
      }
      return found;
    });
  }
  return expanded;
}
