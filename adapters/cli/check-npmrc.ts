import { join } from 'node:path';
import { BridgeError, quote } from '../../src/index.js';
import { readProjectFile } from './read-project-file.js';

/** The most of a project's .npmrc read: past it the call is refused. */
const MAX_NPMRC_BYTES = 1024 * 1024;

/**
 * Keys of a project's `.npmrc` that choose how npm connects and what it trusts: a proxy (a cloned
 * project's `proxy=` with `registry=http://registry.npmjs.org/` had npm send the token of the
 * user's own ~/.npmrc, matched by host, in clear text to that proxy), TLS checks and certificates.
 */
const TRANSPORT_KEYS =
  /^(https?[-_]proxy|proxy|noproxy|no[-_]proxy|strict[-_]ssl|ca|cafile|cert|certfile|key|keyfile|local[-_]address)$/i;

/**
 * Refuses a call whose project `.npmrc` (which outranks the user's own configuration, and which a
 * clone or an archive brings) sets where npm connects or what it sends beyond what the user's
 * configuration says: a transport setting (see `TRANSPORT_KEYS`), a registry that is not https (a
 * token is matched to a registry by host alone, so `http://` sends it in clear text), or a
 * `${VARIABLE}` (npm expands it from the bridge's environment: `_authToken=${NPM_TOKEN}` beside
 * a registry of the project's choosing sent the user's token there). Other settings are left to
 * npm.
 */
export function checkProjectNpmrc(projectDir: string): void {
  const path = join(projectDir, '.npmrc');
  const text = readProjectFile(
    path,
    MAX_NPMRC_BYTES,
    () =>
      new BridgeError(
        'invalid_arguments',
        `refused: the project's .npmrc ${quote(path)} is over 1 MiB, too large to check, so npm is not run with it`,
      ),
  );
  if (text === undefined) return;
  const refuse = (line: number, why: string) =>
    new BridgeError(
      'invalid_arguments',
      `refused: the project's .npmrc ${quote(path)} line ${line} ${why}; a project's .npmrc outranks your own npm configuration, so npm is not run with it (set it in ~/.npmrc instead)`,
    );
  // Lines as npm's ini parser splits them: a lone CR ends one too.
  for (const [index, raw] of text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|[\r\n]/)
    .entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const equals = line.indexOf('=');
    // `key[]=` adds to a list in npm's ini: the same key.
    const key = unquoted(equals < 0 ? line : line.slice(0, equals)).replace(/\[\]$/, '');
    const value = equals < 0 ? '' : unquoted(line.slice(equals + 1));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: names the ${VAR} syntax npm expands
    if (/\$\{/.test(`${line}${key}${value}`)) throw refuse(index + 1, 'reads an environment variable (${…})');
    if (TRANSPORT_KEYS.test(key)) throw refuse(index + 1, `sets ${quote(key)}, how npm connects`);
    if (/(^|:)registry$/i.test(key) && !/^https:\/\//i.test(value)) {
      throw refuse(index + 1, `sets ${quote(key)} to a registry that is not https`);
    }
  }
}

// A key or value as npm's ini parser reads it: a quoted one ("…" or '…') is decoded as JSON where
// it parses (`"\u0072egistry"` is `registry`, `"$\u007bX}"` is `${X}`), as the parser does.
function unquoted(text: string): string {
  let value = text.trim();
  const quoted = /^(["']).*\1$/s.exec(value);
  if (!quoted) return value;
  if (quoted[1] === "'") value = value.slice(1, -1);
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'string' ? parsed : String(parsed);
  } catch {
    return value.replace(/^"|"$/g, '');
  }
}
