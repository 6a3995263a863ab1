import { referencedNames, resolveEnvReferences } from './config/env-references.js';
import { BridgeError } from './errors.js';
import { markSecretVariable } from './secret-variables.js';

/**
 * Replaces `${NAME}` in the values of command-line `--header` flags with the environment variable
 * `NAME`, so secrets stay out of command lines and shell history; `$${` writes a literal `${`, as
 * in a config file. This is the one expansion of a command-line header: a config file's headers are
 * expanded with the rest of its `${VAR}` references when it loads, and adapters send the values
 * they are given as they are (expanding again would expand a value's own `${…}`, an escaped
 * reference included). Throws an `invalid_input` `BridgeError` naming the header and the variable
 * when one is not set.
 *
 * @example expandHeaders({ Authorization: 'Bearer ${GITHUB_TOKEN}' }) // { Authorization: 'Bearer ghp_…' }
 */
export function expandHeaders(
  headers: Record<string, string>,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const expanded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const variables = referencedNames(value);
    // A credential's variable: never handed to the commands the bridge runs.
    for (const variable of variables) markSecretVariable(variable);
    const unset = variables.find((variable) => env[variable] === undefined);
    if (unset !== undefined) {
      throw new BridgeError(
        'invalid_input',
        `header ${name} uses \${${unset}}, which is not set in the environment`,
      );
    }
    expanded[name] = resolveEnvReferences(value, [name], env, []) as string;
  }
  return expanded;
}

/** Header names lower-cased (values as given), so an adapter's defaults and the user's merge by name. */
export function normalizeHeaders(headers: Record<string, string>): Record<string, string> {
  const normalized: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) normalized[name.toLowerCase()] = value;
  return normalized;
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
