import { BridgeError } from '../../src/index.js';
import type { SpecVersion } from './load-document.js';
import { isObject, type Json } from './resolve-ref.js';

/**
 * The base URL calls go to: `--base-url` when given, else the operation's or the spec's first
 * server (variables at their defaults; a relative URL resolved against the spec's own URL), else,
 * for Swagger 2.0, `schemes[0]://host/basePath`. Throws when the spec gives no usable address.
 */
export function resolveBaseUrl(
  document: Json,
  version: SpecVersion,
  location: string,
  override: string | undefined,
  servers: unknown[] | undefined,
): URL {
  if (override) return parse(override, '--base-url');
  const specUrl = /^https?:\/\//i.test(location) ? location : undefined;
  if (version === 'swagger2') {
    const host = typeof document.host === 'string' ? document.host : undefined;
    const basePath = typeof document.basePath === 'string' ? document.basePath : '';
    const schemes = Array.isArray(document.schemes) ? (document.schemes as string[]) : [];
    if (host) {
      const scheme = schemes.includes('https') ? 'https' : (schemes[0] ?? 'https');
      return parse(`${scheme}://${host}${basePath}`, 'host/basePath');
    }
    if (specUrl) return new URL(basePath || '/', specUrl);
    throw missing(location);
  }
  const list = servers ?? (Array.isArray(document.servers) ? document.servers : []);
  const server = list.find(isObject);
  if (!server || typeof server.url !== 'string') {
    if (specUrl) return new URL('/', specUrl);
    throw missing(location);
  }
  const variables = isObject(server.variables) ? server.variables : {};
  const url = server.url.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const variable = variables[name];
    return isObject(variable) && variable.default !== undefined ? String(variable.default) : '';
  });
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return parse(url, 'servers[0].url');
  if (specUrl) return new URL(url, specUrl);
  throw new BridgeError(
    'invalid_input',
    `${location}: the server URL "${server.url}" is relative and the spec is a local file; pass --base-url https://…`,
  );
}

function parse(url: string, where: string): URL {
  try {
    return new URL(url);
  } catch (error) {
    throw new BridgeError('invalid_input', `${where}: "${url}" is not a valid URL`, { cause: error });
  }
}

function missing(location: string): BridgeError {
  return new BridgeError('invalid_input', `${location} names no server to call; pass --base-url https://…`);
}

/** Where one operation's calls go, and whether the user's credentials go with them. */
export interface CallTarget {
  url: URL;
  /**
   * Whether `url` is on the origin the user chose (see `credentialOrigin`): only then are the
   * `--header` values, the security schemes' credentials and a forwarded `Authorization` sent.
   */
  chosen: boolean;
}

/** The fields of a document that say where calls go. */
interface ServerDocument {
  document: Json;
  version: SpecVersion;
  location: string;
}

/**
 * Where an operation with `servers` of its own (a path's or an operation's, OpenAPI 3) is called,
 * and whether that is the origin the user chose.
 */
export function callTarget(
  spec: ServerDocument,
  override: string | undefined,
  servers: unknown[] | undefined,
): CallTarget {
  const url = resolveBaseUrl(spec.document, spec.version, spec.location, override, servers);
  const chosen = servers === undefined || override !== undefined || url.origin === credentialOrigin(spec);
  return { url, chosen: chosen && url.origin !== 'null' };
}

/**
 * The origin the user's credentials go to: `--base-url`'s when given (every call goes there), else
 * the spec's top-level server's (for a spec fetched by URL without one, the URL's). Undefined when
 * the spec names no top-level server.
 */
function credentialOrigin({ document, version, location }: ServerDocument): string | undefined {
  try {
    return resolveBaseUrl(document, version, location, undefined, undefined).origin;
  } catch {
    return undefined;
  }
}

/**
 * The operations whose own servers are on another origin than the spec's top-level server, with
 * that origin: what `callTarget` sends without credentials (a local spec) or refuses (a fetched
 * one) unless `--base-url` is given. An operation whose server cannot be resolved is left out: its
 * calls fail, saying why.
 */
export function otherOrigins(
  spec: ServerDocument,
  operations: Iterable<{ name: string; servers?: unknown[] }>,
): [name: string, origin: string][] {
  const found: [string, string][] = [];
  for (const { name, servers } of operations) {
    if (!servers) continue;
    try {
      const target = callTarget(spec, undefined, servers);
      if (!target.chosen) found.push([name, target.url.origin]);
    } catch {}
  }
  return found;
}

/** Whether calls to another origin are refused: the spec was fetched by URL, its author is not the user. */
export function isFetched(location: string): boolean {
  return /^https?:\/\//i.test(location);
}
