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
