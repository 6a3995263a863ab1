import { BridgeError } from './errors.js';
import { markSecretVariable } from './secret-variables.js';

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
      // A credential's variable: never handed to the commands the bridge runs.
      markSecretVariable(variable);
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

// "Bearer", "Basic", "token"… with nothing after: the scheme of a credential whose value is missing.
const EMPTY_CREDENTIAL = /^(bearer|basic|token|digest|apikey)?$/i;
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization']);

/**
 * Warnings for credential headers left empty, typically `--header "Authorization: Bearer $TOKEN"`
 * with `TOKEN` unset in the shell that expanded it: every call would then fail with 401.
 */
export function emptyCredentialWarnings(headers: Record<string, string>): string[] {
  const warnings: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!CREDENTIAL_HEADERS.has(name.toLowerCase()) || !EMPTY_CREDENTIAL.test(value.trim())) continue;
    const shown = value.trim() ? `"${value.trim()}" with no credential after it` : 'empty';
    warnings.push(
      `header ${name} is ${shown}; was the variable empty when the shell expanded it? Write '\${VAR}' in single quotes to let the bridge read it (it fails when VAR is not set)`,
    );
  }
  return warnings;
}
