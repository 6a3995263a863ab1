import { createHash, timingSafeEqual } from 'node:crypto';
import { resolve } from 'node:path';
import { BridgeError, describeError } from '../errors.js';
import { readInputFileSync } from '../read-input-file.js';
import { markSecretVariable } from '../secret-variables.js';
import type { TokenVerifier } from './token-verifier.js';

/** One accepted static token. */
export interface StaticToken {
  token: string;
  /** Who the token stands for; resources and tasks are bound to it. */
  subject: string;
  /** The scopes it grants; `undefined`: every scope the server knows. */
  scopes?: string[];
}

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Parses a token list: one token per line (or per `;` in an environment variable),
 * `TOKEN [SUBJECT [SCOPE,SCOPE…]]`, `#` starts a comment. Without a subject the token stands for
 * `token-<first 8 hex digits of its SHA-256>`; without scopes (or with `*`) it grants every scope.
 * `origin` names where the text came from, for errors; errors never quote a token.
 */
export function parseStaticTokens(text: string, origin: string): StaticToken[] {
  const tokens: StaticToken[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n|;/);
  lines.forEach((raw, index) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) return;
    const [token, subject, scopeList, ...rest] = line.split(/\s+/) as [string, ...string[]];
    const where = `${origin}, entry ${index + 1}`;
    if (rest.length > 0) {
      throw new BridgeError(
        'invalid_input',
        `${where}: expected "TOKEN [SUBJECT [SCOPE,SCOPE…]]", found ${rest.length + 3} fields`,
      );
    }
    if (!TOKEN68.test(token)) {
      throw new BridgeError(
        'invalid_input',
        `${where}: a token may contain only letters, digits and - . _ ~ + / (then = padding)`,
      );
    }
    if (seen.has(token)) throw new BridgeError('invalid_input', `${where}: the same token is listed twice`);
    seen.add(token);
    const scopes =
      scopeList === undefined || scopeList === '*' ? undefined : scopeList.split(',').filter(Boolean);
    tokens.push({
      token,
      subject: subject ?? `token-${sha256(token).subarray(0, 4).toString('hex')}`,
      ...(scopes ? { scopes } : {}),
    });
  });
  return tokens;
}

/** The most a token file may hold: thousands of tokens. */
const MAX_TOKEN_FILE_BYTES = 2 ** 20;

/** Reads tokens from an environment variable and/or a file; at least one token must result. */

export function loadStaticTokens(
  from: { env?: string; file?: string },
  environment: NodeJS.ProcessEnv,
  baseDir: string,
): StaticToken[] {
  const tokens: StaticToken[] = [];
  if (from.env !== undefined) {
    // The callers' tokens: no command the bridge runs may see them.
    markSecretVariable(from.env);
    const value = environment[from.env];
    if (value === undefined || value.trim() === '') {
      throw new BridgeError(
        'invalid_input',
        `--auth-tokens-env ${from.env}: the environment variable is not set or empty`,
      );
    }
    tokens.push(...parseStaticTokens(value, `environment variable ${from.env}`));
  }
  if (from.file !== undefined) {
    const path = resolve(baseDir, from.file);
    let text: string;
    try {
      // Read before the bridge takes signals (see `readInputFileSync`): a pipe (`<(pass show …)`)
      // is read to its end, a device refused.
      text = readInputFileSync(path, { what: 'the token file', maxBytes: MAX_TOKEN_FILE_BYTES }).toString(
        'utf8',
      );
    } catch (error) {
      throw new BridgeError('invalid_input', `--auth-tokens-file ${from.file}: ${describeError(error)}`, {
        cause: error,
      });
    }
    tokens.push(...parseStaticTokens(text, `token file ${from.file}`));
  }
  if (tokens.length === 0) {
    throw new BridgeError(
      'invalid_input',
      '--auth token needs at least one token: set --auth-tokens-env VAR or --auth-tokens-file FILE',
    );
  }
  return tokens;
}

/**
 * Accepts exactly the listed tokens. Lookup is by SHA-256 digest and the final comparison is
 * constant-time, so response timing says nothing about how much of a guess was right.
 */
export function staticTokenVerifier(
  tokens: readonly StaticToken[],
  allScopes: () => string[],
): TokenVerifier {
  const byDigest = new Map(tokens.map((entry) => [sha256(entry.token).toString('hex'), entry]));
  return {
    async verify(token, resource) {
      const digest = sha256(token);
      const entry = byDigest.get(digest.toString('hex'));
      if (!entry || !timingSafeEqual(sha256(entry.token), digest)) {
        return { ok: false, description: 'The token is not valid for this server.' };
      }
      return {
        ok: true,
        authInfo: {
          token,
          clientId: entry.subject,
          scopes: entry.scopes ?? allScopes(),
          resource: new URL(resource),
          extra: { subject: entry.subject },
        },
      };
    },
  };
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
