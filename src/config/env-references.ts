/**
 * Secrets in a config file are references to environment variables, written `${VAR}` inside a
 * string (e.g. `Authorization: "Bearer ${GITHUB_TOKEN}"`). A file can then be committed and shared;
 * the values live in the environment of whoever runs the bridge.
 */

/** A problem at a path inside the config file. */
export interface ConfigProblem {
  /** Keys and indexes from the root of the file. */
  path: (string | number)[];
  message: string;
  /** What the user should do. */
  fix: string;
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
// Not after a `$`: `$${` writes a literal `${`.
const HAS_REFERENCE = /(?<!\$)\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

// Header names whose values are credentials.
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie)$|api[-_]?key|token|secret|password|auth/i;
// Option keys whose values are credentials, anywhere in a source's options.
const SECRET_KEY = /^(token|password|passwd|secret|api[-_]?key|client[-_]?secret|access[-_]?token|bearer)$/i;
// Inside an `auth` object, keys that hold credentials (not `type`, `in`, `tokenUrl`, `scopes`…).
const AUTH_SECRET_KEY = /token$|secret|password|passwd|key$|credential/i;
// Keys that name an environment variable rather than hold a value.
const NAMES_A_VARIABLE = /env|var(iable)?$/i;
// Option keys whose values are URLs: a GraphQL endpoint, a base URL, an OAuth token URL.
const URL_KEY = /^endpoint$|ur[li]$/i;
const ABSOLUTE_URL = /^\s*[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Finds credentials written inline in a source's `options`: header values that look like
 * credentials, and `token`/`password`/`secret`-like fields, that do not use a `${VAR}` reference.
 */
export function findInlineSecrets(
  options: unknown,
  path: (string | number)[],
  sourceName: string,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  visitStrings(options, path, (key, value, at, context) => {
    // A header's value is sent as it is, whatever its name says (`X-Environment-Token`); and an
    // escaped `$${X}` is a literal, not a reference.
    if (value === '' || HAS_REFERENCE.test(value)) return;
    if (context !== 'headers' && NAMES_A_VARIABLE.test(key)) return;
    const secret =
      (context === 'headers' && SECRET_HEADER.test(key)) ||
      (context === 'auth' && AUTH_SECRET_KEY.test(key)) ||
      SECRET_KEY.test(key);
    if (secret) problems.push(inlineSecret(at, value, sourceName));
  });
  return problems;
}

/**
 * The variables a source's options reference where a credential goes: every header value, the
 * credential-like keys `findInlineSecrets` knows (`token`, `password`, an `auth` object's
 * secrets), and every URL (`endpoint`, `baseUrl`, any `…Url` key, or a value that is a URL once
 * resolved, such as a spec's), whose query or user info may hold a key (`?api_key=${KEY}`). The
 * bridge marks them secret, so the commands it runs never receive them (see
 * `commandEnvironment`): a caller could otherwise read `${GITHUB_TOKEN}` back through jq's `$ENV`.
 */
export function secretReferences(options: unknown, env: NodeJS.ProcessEnv = process.env): string[] {
  const names: string[] = [];
  visitStrings(options, [], (key, value, _at, context) => {
    if (!HAS_REFERENCE.test(value)) return;
    const secret =
      context === 'headers' ||
      (context === 'auth' && AUTH_SECRET_KEY.test(key)) ||
      SECRET_KEY.test(key) ||
      URL_KEY.test(key) ||
      ABSOLUTE_URL.test(String(resolveEnvReferences(value, [], env, [])));
    if (secret) names.push(...referencedNames(value));
  });
  return names;
}

/** The variables `${NAME}` in `value` refers to (a `$${` escape is a literal, not a reference). */
export function referencedNames(value: unknown): string[] {
  if (typeof value === 'string') {
    return value
      .split('$${')
      .flatMap((part) => [...part.matchAll(REFERENCE)].map((match) => match[1] as string));
  }
  if (Array.isArray(value)) return value.flatMap(referencedNames);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(referencedNames);
  return [];
}

type StringContext = 'headers' | 'auth' | 'plain';

// Calls `found` for every string of `options` with its key, its path and where it sits: a header
// value, inside an `auth`/`security` object, or elsewhere.
function visitStrings(
  options: unknown,
  path: (string | number)[],
  found: (key: string, value: string, at: (string | number)[], context: StringContext) => void,
): void {
  const visit = (value: unknown, at: (string | number)[], context: StringContext) => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => void visit(item, [...at, index], context));
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const here = [...at, key];
      if (typeof child === 'string') {
        found(key, child, here, context);
        continue;
      }
      const lower = key.toLowerCase();
      const next =
        lower === 'headers' ? 'headers' : lower === 'auth' || lower === 'security' ? 'auth' : context;
      visit(child, here, next);
    }
  };
  visit(options, path, 'plain');
}

function inlineSecret(path: (string | number)[], value: string, sourceName: string): ConfigProblem {
  const variable = `${sourceName.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_TOKEN`;
  // Keep an authorization scheme the user wrote ("Bearer abc…" becomes "Bearer ${GH_TOKEN}").
  const scheme = /^(bearer|token|basic)\s+/i.exec(value)?.[0] ?? '';
  return {
    path,
    message:
      'a credential is written inline; config files get committed and shared, so secrets are refused here',
    fix: `put the secret in an environment variable and write "${scheme}\${${variable}}" instead`,
  };
}

/**
 * Replaces `${VAR}` in every string of `value` with the environment variable; `$${` stays a
 * literal `${`. A variable that is not set is a problem naming it, not an empty string.
 */
export function resolveEnvReferences(
  value: unknown,
  path: (string | number)[],
  env: NodeJS.ProcessEnv,
  problems: ConfigProblem[],
): unknown {
  if (typeof value === 'string') {
    return value
      .split('$${')
      .map((part) =>
        part.replace(REFERENCE, (_match, name: string) => {
          const resolved = env[name];
          if (resolved !== undefined) return resolved;
          problems.push({
            path,
            message: `the environment variable ${name} is not set`,
            fix: `set ${name} in the environment the bridge runs in (or remove the reference)`,
          });
          return '';
        }),
      )
      .join('${');
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => resolveEnvReferences(item, [...path, index], env, problems));
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [
        key,
        resolveEnvReferences(child, [...path, key], env, problems),
      ]),
    );
  }
  return value;
}
