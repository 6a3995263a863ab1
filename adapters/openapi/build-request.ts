import { BridgeError, credentialVariable } from '../../src/index.js';
import { fillPath, scalar } from './fill-path.js';
import type { BodyPlan, OperationPlan, ParamPlan } from './plan-operation.js';
import { isObject } from './resolve-ref.js';

/** An HTTP request ready to send: origin and raw path kept apart so nothing re-normalizes the path. */
export interface HttpRequest {
  method: string;
  origin: string;
  /** Path and query, percent-encoded, never normalized. */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | FormData;
  /** Query parameters the credentials were added as (an `apiKey` in the query): never shown in a result. */
  credentialQuery?: string[];
}

/**
 * The query and cookie parameters that carry an operation's credentials (an `apiKey` scheme's
 * `name`), lower-cased, each with its scheme: an argument setting one (an exploded object's
 * member, a parameter of that name) would send a key of the agent's choosing beside the user's,
 * and many servers read the first.
 */
export interface CredentialNames {
  query: ReadonlyMap<string, string>;
  cookie: ReadonlyMap<string, string>;
}

const NO_CREDENTIALS: CredentialNames = { query: new Map(), cookie: new Map() };

/**
 * Turns validated arguments into a request for `plan` against `baseUrl`: path parameters are
 * percent-encoded, and refused when they would leave the operation's path (see `fillPath`), query
 * parameters follow their `style`/`explode`, and the body is encoded for its media type. Only the
 * arguments' own members are read: a left-out `constructor` is left out, not `Object`'s.
 */
export function buildRequest(
  plan: OperationPlan,
  args: Record<string, unknown>,
  baseUrl: URL,
  credentials: CredentialNames = NO_CREDENTIALS,
): HttpRequest {
  const path = fillPath(plan, args);
  const query: string[] = [];
  const headers: Record<string, string> = { accept: plan.accept };
  const cookies: string[] = [];
  for (const param of plan.params) {
    if (param.in === 'path') continue;
    const value = Object.hasOwn(args, param.arg) ? args[param.arg] : undefined;
    if (value === undefined || value === null) continue;
    switch (param.in) {
      case 'query': {
        const pairs = serializeQuery(param, value);
        if (credentials.query.size > 0) {
          for (const pair of pairs) {
            refuseCredential(param, decodeURIComponent(pair.split('=', 1)[0] ?? ''), credentials.query);
          }
        }
        query.push(...pairs);
        break;
      }
      case 'header':
        headers[param.name.toLowerCase()] = serializeSimple(param, value);
        break;
      case 'cookie':
        refuseCredential(param, param.name, credentials.cookie);
        cookies.push(`${param.name}=${encodeURIComponent(serializeSimple(param, value))}`);
        break;
    }
  }
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  const base = baseOf(baseUrl);
  const request: HttpRequest = {
    method: plan.method.toUpperCase(),
    origin: base.origin,
    path: `${base.path}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`,
    headers,
  };
  if (plan.body && Object.hasOwn(args, plan.body.arg)) {
    const value = args[plan.body.arg];
    if (value !== undefined) {
      const encoded = encodeBody(plan.body, value);
      request.body = encoded.body;
      if (encoded.contentType) headers['content-type'] = encoded.contentType;
    }
  }
  return request;
}

function refuseCredential(param: ParamPlan, name: string, names: ReadonlyMap<string, string>): void {
  const scheme = names.get(name.toLowerCase());
  if (scheme === undefined) return;
  throw new BridgeError(
    'invalid_arguments',
    `the argument "${param.arg}" sets the ${param.in} parameter "${name}", which carries the credential of security scheme "${scheme}": ` +
      `the bridge adds it from ${credentialVariable(scheme, 'API_KEY')}, and no argument may set it; leave "${name}" out`,
  );
}

// A base URL's origin and path without its trailing slashes, read once per URL: `URL` builds a new
// string on each read of `origin`.
const bases = new WeakMap<URL, { origin: string; path: string }>();

function baseOf(url: URL): { origin: string; path: string } {
  let base = bases.get(url);
  if (!base) {
    base = { origin: url.origin, path: url.pathname.replace(/\/+$/, '') };
    bases.set(url, base);
  }
  return base;
}

function encodeQueryValue(text: string, allowReserved: boolean): string {
  if (!allowReserved) return encodeURIComponent(text);
  // RFC 3986 reserved characters pass through; `&`, `=`, `#` and `+` would still break the query.
  return encodeURI(text).replace(/[&=#+]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const DELIMITERS: Record<string, string> = {
  spaceDelimited: '%20',
  pipeDelimited: '|',
  tabDelimited: '%09',
};

function serializeQuery(param: ParamPlan, value: unknown): string[] {
  const enc = (text: string) => encodeQueryValue(text, param.allowReserved);
  const name = encodeURIComponent(param.name);
  if (param.json) return [`${name}=${enc(JSON.stringify(value))}`];
  if (Array.isArray(value)) {
    const items = value.map((item) => enc(scalar(item)));
    const delimiter = DELIMITERS[param.style];
    if (param.explode) return items.map((item) => `${name}=${item}`);
    return [`${name}=${items.join(delimiter ?? ',')}`];
  }
  if (isObject(value)) {
    if (param.style === 'deepObject') return deepObject(name, value, enc);
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (param.explode) return entries.map(([k, v]) => `${encodeURIComponent(k)}=${enc(scalar(v))}`);
    const delimiter = DELIMITERS[param.style] ?? ',';
    return [`${name}=${entries.flatMap(([k, v]) => [enc(k), enc(scalar(v))]).join(delimiter)}`];
  }
  return [`${name}=${enc(scalar(value))}`];
}

function deepObject(prefix: string, value: Record<string, unknown>, enc: (text: string) => string): string[] {
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const name = `${prefix}%5B${encodeURIComponent(key)}%5D`;
    if (isObject(item)) parts.push(...deepObject(name, item, enc));
    else if (Array.isArray(item)) parts.push(...item.map((entry) => `${name}=${enc(scalar(entry))}`));
    else parts.push(`${name}=${enc(scalar(item))}`);
  }
  return parts;
}

// Headers and cookies: `simple` style, arrays and objects as comma lists.
function serializeSimple(param: ParamPlan, value: unknown): string {
  if (param.json) return JSON.stringify(value);
  if (Array.isArray(value)) return value.map(scalar).join(',');
  if (isObject(value)) {
    const entries = Object.entries(value);
    return param.explode
      ? entries.map(([k, v]) => `${k}=${scalar(v)}`).join(',')
      : entries.flatMap(([k, v]) => [k, scalar(v)]).join(',');
  }
  return scalar(value).replace(/[\r\n]+/g, ' ');
}

function encodeBody(
  body: BodyPlan,
  value: unknown,
): { body: string | Uint8Array | FormData; contentType?: string } {
  switch (body.kind) {
    case 'json':
      return { body: JSON.stringify(value), contentType: body.mediaType };
    case 'text':
      return { body: scalar(value), contentType: body.mediaType };
    case 'binary':
      return { body: decodeBase64(value, body.arg), contentType: body.mediaType };
    case 'form': {
      const form = new URLSearchParams();
      for (const [key, item] of Object.entries(isObject(value) ? value : {})) {
        if (item === undefined || item === null) continue;
        if (Array.isArray(item)) for (const entry of item) form.append(key, scalar(entry));
        else form.append(key, scalar(item));
      }
      return { body: form.toString(), contentType: 'application/x-www-form-urlencoded' };
    }
    case 'multipart': {
      // No content-type here: FormData sets it with its boundary.
      const form = new FormData();
      for (const [key, item] of Object.entries(isObject(value) ? value : {})) {
        if (item === undefined || item === null) continue;
        const entries = Array.isArray(item) && body.binaryFields.includes(key) ? item : [item];
        for (const entry of entries) {
          if (body.binaryFields.includes(key)) {
            const bytes = decodeBase64(entry, `${body.arg}.${key}`);
            form.append(key, new Blob([bytes], { type: 'application/octet-stream' }), key);
          } else {
            form.append(key, scalar(entry));
          }
        }
      }
      return { body: form };
    }
  }
}

function decodeBase64(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string') {
    throw new BridgeError('invalid_arguments', `"${where}" must be a base64-encoded string`);
  }
  return Buffer.from(value, 'base64');
}
