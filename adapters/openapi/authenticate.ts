import type { Dispatcher } from 'undici';
import {
  BridgeError,
  clip,
  credentialVariable,
  describeError,
  isLoopback,
  listSome,
  MAX_AUTH_RESPONSE_BYTES,
  mebibytes,
  readResponseBody,
  type ToolContext,
  UpstreamSignIn,
} from '../../src/index.js';
import type { CredentialNames, HttpRequest } from './build-request.js';
import { isObject, type Json } from './resolve-ref.js';

/**
 * The environment variables a scheme reads (named after it: `credentialVariable`), for the docs
 * and for error hints. Secrets never appear in flags or config files.
 */
function credentialVariables(scheme: string, definition: Json): string[] {
  const type = String(definition.type ?? '').toLowerCase();
  if (type === 'apikey') return [credentialVariable(scheme, 'API_KEY')];
  if (type === 'basic' || (type === 'http' && String(definition.scheme).toLowerCase() === 'basic')) {
    return [credentialVariable(scheme, 'USERNAME'), credentialVariable(scheme, 'PASSWORD')];
  }
  if (type === 'http') return [credentialVariable(scheme, 'TOKEN')];
  if (type === 'oauth2' && (clientCredentialsUrl(definition) || authorizationCodeFlow(definition))) {
    return [
      credentialVariable(scheme, 'CLIENT_ID'),
      credentialVariable(scheme, 'CLIENT_SECRET'),
      credentialVariable(scheme, 'TOKEN'),
    ];
  }
  return [credentialVariable(scheme, 'TOKEN')];
}

/**
 * What `apply` did: when no alternative could be satisfied, the variables missing, and the schemes
 * not granted theirs (see `grantedSchemes`), for the 401/403 hint.
 */
export interface Applied {
  missing: string[];
  ungranted: string[];
  refreshable: boolean;
}

const NOTHING_NEEDED: Applied = { missing: [], ungranted: [], refreshable: false };

/**
 * Which of a spec's security schemes may read their `BRIDGE_<SCHEME>_…` variables: those the user
 * named (`--auth-scheme`, `authSchemes`), else every scheme of a spec the user holds (a local
 * file), and none of a spec fetched by URL. Whoever serves that spec chose its schemes' names, and
 * so which of the user's variables it would be sent: a scheme named `github` would get the token
 * meant for another source. Names are compared as the variables they read.
 */
export function grantedSchemes(
  named: readonly string[] | undefined,
  fetched: boolean,
): (scheme: string) => boolean {
  if (named === undefined) return () => !fetched;
  const keys = new Set(named.map((name) => credentialVariable(name, '')));
  return (scheme) => keys.has(credentialVariable(scheme, ''));
}

/**
 * Says what the user's naming of schemes left out, once at load: the schemes whose variables are
 * set but that are not named (their operations are called without them), and names the spec has no
 * scheme for (a typo would otherwise pass silently).
 */
export function ungrantedWarnings(
  schemes: Json,
  named: readonly string[] | undefined,
  granted: (scheme: string) => boolean,
  env: NodeJS.ProcessEnv,
  shown: string,
): string[] {
  const warnings: string[] = [];
  const held = Object.keys(schemes).filter((name) => isObject(schemes[name]));
  const unused = held.filter(
    (name) => !granted(name) && credentialVariables(name, schemes[name] as Json).some((v) => env[v]),
  );
  if (unused.length > 0) {
    const why = named
      ? 'only the schemes named with --auth-scheme (authSchemes in a config file) are given theirs'
      : "a spec fetched by URL chose its schemes' names, and so which of your variables it would read: name each scheme it may use with --auth-scheme (authSchemes in a config file)";
    warnings.push(
      `${shown}: security ${unused.length === 1 ? 'scheme' : 'schemes'} ${few(unused)} ${unused.length === 1 ? 'has' : 'have'} variables set but ${unused.length === 1 ? 'is' : 'are'} not given them, so operations needing ${unused.length === 1 ? 'it are' : 'them are'} called without: ${why}.`,
    );
  }
  const keys = new Set(held.map((name) => credentialVariable(name, '')));
  const unknown = (named ?? []).filter((name) => !keys.has(credentialVariable(name, '')));
  if (unknown.length > 0) {
    warnings.push(
      `${shown}: --auth-scheme ${few(unknown)}: the spec has no such security scheme (it has ${held.length > 0 ? few(held) : 'none'}).`,
    );
  }
  return warnings;
}

// A few scheme names, quoted and clipped: a fetched spec chooses how many and how long.
function few(names: readonly string[]): string {
  return listSome(names, { most: 10, show: (name) => `"${clip(name, 100)}"`, more: (n) => `${n} more` }).join(
    ', ',
  );
}

interface CachedToken {
  value: string;
  expiresAt: number;
}

/** Applies credentials to requests according to the spec's security schemes. One per source. */
export class Authenticator {
  readonly #schemes: Json;
  readonly #env: NodeJS.ProcessEnv;
  readonly #tokens = new Map<string, Promise<CachedToken>>();
  readonly #timeoutMs: number;
  readonly #dispatcher: (() => Promise<Dispatcher>) | undefined;
  readonly #signIns = new Map<string, UpstreamSignIn>();
  readonly #names = new WeakMap<readonly Json[], CredentialNames>();
  readonly #granted: (scheme: string) => boolean;

  /**
   * `dispatcher`: the pool token requests go through (the source's, with its address checks).
   * `granted`: the schemes that may read their variables (`grantedSchemes`); default all.
   */
  constructor(
    schemes: Json,
    env: NodeJS.ProcessEnv,
    timeoutMs: number,
    dispatcher?: () => Promise<Dispatcher>,
    granted: (scheme: string) => boolean = () => true,
  ) {
    this.#schemes = schemes;
    this.#env = env;
    this.#timeoutMs = timeoutMs;
    this.#dispatcher = dispatcher;
    this.#granted = granted;
  }

  /**
   * Adds the credentials of the first security alternative whose variables are all set. Returns
   * the variables that would have been needed when none is satisfied (for the 401 hint).
   */
  async apply(security: readonly Json[], request: HttpRequest, context: ToolContext): Promise<Applied> {
    if (security.length === 0) return NOTHING_NEEDED;
    const missing = new Set<string>();
    const ungranted = new Set<string>();
    for (const alternative of security) {
      const names = Object.keys(alternative);
      if (names.length === 0) return NOTHING_NEEDED;
      const withheld = names.filter((name) => this.#definition(name) && !this.#granted(name));
      // A withheld scheme's unset variables too: naming it alone would not do.
      const unavailable = names.flatMap((name) => this.#missing(name));
      if (withheld.length > 0 || unavailable.length > 0) {
        for (const name of withheld) ungranted.add(name);
        for (const variable of unavailable) missing.add(variable);
        continue;
      }
      let refreshable = false;
      for (const name of names) {
        const scopes = Array.isArray(alternative[name]) ? (alternative[name] as string[]) : [];
        refreshable = (await this.#applyScheme(name, scopes, request, context)) || refreshable;
      }
      return { missing: [], ungranted: [], refreshable };
    }
    return { missing: [...missing], ungranted: [...ungranted], refreshable: false };
  }

  /**
   * Forgets cached client-credentials tokens, and marks the caller's signed-in token as rejected so
   * that the next `apply` refreshes it (after the upstream answered 401 to `authorization`).
   */
  invalidateTokens(caller?: string, authorization?: string): void {
    this.#tokens.clear();
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (caller === undefined || token === undefined) return;
    for (const signIn of this.#signIns.values()) signIn.rejected(caller, token);
  }

  /**
   * The query and cookie parameters the credentials of `security` travel as (`apiKey` schemes), for
   * `buildRequest` to refuse an argument that sets one. Read once per operation.
   */
  credentialNames(security: readonly Json[]): CredentialNames {
    let names = this.#names.get(security);
    if (!names) {
      const query = new Map<string, string>();
      const cookie = new Map<string, string>();
      for (const alternative of security) {
        for (const scheme of Object.keys(alternative)) {
          const definition = this.#definition(scheme);
          if (String(definition?.type ?? '').toLowerCase() !== 'apikey') continue;
          const name = String(definition?.name ?? 'api_key').toLowerCase();
          if (definition?.in === 'query') query.set(name, scheme);
          else if (definition?.in === 'cookie') cookie.set(name, scheme);
        }
      }
      names = { query, cookie };
      this.#names.set(security, names);
    }
    return names;
  }

  #definition(name: string): Json | undefined {
    const definition = this.#schemes[name];
    return isObject(definition) ? definition : undefined;
  }

  #missing(name: string): string[] {
    const definition = this.#definition(name);
    if (!definition) return [];
    const variables = credentialVariables(name, definition);
    if (String(definition.type).toLowerCase() === 'oauth2' && variables.length === 3) {
      const token = variables[2] as string;
      if (this.#env[token]) return [];
      // Authorization code: a public client has no secret; the user signs in at call time.
      const needed = clientCredentialsUrl(definition) ? variables.slice(0, 2) : variables.slice(0, 1);
      return needed.filter((v) => !this.#env[v]);
    }
    return variables.filter((v) => !this.#env[v]);
  }

  // Returns whether the credential is a fetched token that a retry could refresh.
  async #applyScheme(
    name: string,
    scopes: string[],
    req: HttpRequest,
    context: ToolContext,
  ): Promise<boolean> {
    const { signal } = context;
    const definition = this.#definition(name);
    if (!definition) return false;
    const type = String(definition.type ?? '').toLowerCase();
    const env = (suffix: string) => this.#env[credentialVariable(name, suffix)] ?? '';
    if (type === 'apikey') {
      const key = env('API_KEY');
      const paramName = String(definition.name ?? 'api_key');
      if (definition.in === 'query') {
        const separator = req.path.includes('?') ? '&' : '?';
        req.path += `${separator}${encodeURIComponent(paramName)}=${encodeURIComponent(key)}`;
        // Kept out of what a result shows (a `Location` resolved against this URL).
        req.credentialQuery = [...(req.credentialQuery ?? []), paramName];
      } else if (definition.in === 'cookie') {
        const cookie = `${paramName}=${encodeURIComponent(key)}`;
        req.headers.cookie = req.headers.cookie ? `${req.headers.cookie}; ${cookie}` : cookie;
      } else {
        req.headers[paramName.toLowerCase()] = key;
      }
      return false;
    }
    if (type === 'basic' || (type === 'http' && String(definition.scheme).toLowerCase() === 'basic')) {
      const encoded = Buffer.from(`${env('USERNAME')}:${env('PASSWORD')}`).toString('base64');
      req.headers.authorization = `Basic ${encoded}`;
      return false;
    }
    if (type === 'oauth2' && !env('TOKEN')) {
      const tokenUrl = clientCredentialsUrl(definition);
      if (tokenUrl) {
        const url = this.#tokenEndpoint(name, tokenUrl, req.origin);
        const token = await this.#clientCredentials(name, url, scopes, signal);
        req.headers.authorization = `Bearer ${token}`;
        return true;
      }
      const flow = authorizationCodeFlow(definition);
      if (flow) {
        const token = await this.#signIn(name, flow, req.origin).accessToken(context);
        req.headers.authorization = `Bearer ${token}`;
        return true;
      }
    }
    req.headers.authorization = `Bearer ${env('TOKEN')}`;
    return false;
  }

  /**
   * Where scheme `name` gets its tokens: `BRIDGE_<SCHEME>_TOKEN_URL` as the user set it, else the
   * spec's token URL (relative to the API's own base URL). The client's secret, or a sign-in's
   * code and PKCE verifier, go there: a spec's URL must be https, or http to this machine, so that
   * a spec cannot have them sent in clear text. Throws a `BridgeError` saying so.
   */
  #tokenEndpoint(name: string, specUrl: string, origin: string): string {
    return this.#endpoint(
      name,
      'TOKEN_URL',
      specUrl,
      origin,
      'token URL',
      "the client's credentials are sent",
    );
  }

  /**
   * Where scheme `name`'s sign-in sends the user's browser: `BRIDGE_<SCHEME>_AUTHORIZATION_URL`
   * as the user set it, else the spec's authorization URL, held to the token URL's rule: the user
   * signs in there, with a password perhaps, and a spec must not have that page served in clear text.
   */
  #authorizationEndpoint(name: string, specUrl: string, origin: string): string {
    return this.#endpoint(
      name,
      'AUTHORIZATION_URL',
      specUrl,
      origin,
      'authorization URL',
      'the user signs in',
    );
  }

  // A spec's endpoint URL (relative to the API's base URL), or the variable `suffix` names when set.
  #endpoint(
    name: string,
    suffix: 'TOKEN_URL' | 'AUTHORIZATION_URL',
    specUrl: string,
    origin: string,
    what: string,
    sent: string,
  ): string {
    const variable = credentialVariable(name, suffix);
    const configured = this.#env[variable];
    if (configured) return configured;
    const url = new URL(specUrl, `${origin}/`);
    // `localhost`, 127.0.0.0/8 or ::1 (WHATWG URLs lowercase the host). Not `*.localhost`: a
    // resolver without RFC 6761's rule asks DNS for those, which may answer anything.
    if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname))) return url.href;
    throw new BridgeError(
      'invalid_input',
      `security scheme "${name}": the spec's ${what} ${url.href} is not https, and ${sent} only over TLS or to this machine; set ${variable} to the endpoint to use`,
    );
  }

  // One sign-in per scheme: it keeps each caller's tokens for every operation of the source.
  #signIn(
    name: string,
    flow: { authorizationUrl: string; tokenUrl: string; scopes: string[] },
    origin: string,
  ) {
    let signIn = this.#signIns.get(name);
    if (!signIn) {
      const secret = this.#env[credentialVariable(name, 'CLIENT_SECRET')];
      const configured = this.#env[credentialVariable(name, 'SCOPES')];
      signIn = new UpstreamSignIn({
        label: `security scheme "${name}"`,
        audience: origin,
        // Relative URLs are relative to the API's own base URL.
        authorizationUrl: this.#authorizationEndpoint(name, flow.authorizationUrl, origin),
        tokenUrl: this.#tokenEndpoint(name, flow.tokenUrl, origin),
        ...(this.#dispatcher ? { fetch: fetchThrough(this.#dispatcher) } : {}),
        clientId: this.#env[credentialVariable(name, 'CLIENT_ID')] ?? '',
        ...(secret ? { clientSecret: secret } : {}),
        scopes: configured === undefined ? flow.scopes : configured.split(/\s+/).filter(Boolean),
        timeoutMs: this.#timeoutMs,
        alternative: credentialVariable(name, 'TOKEN'),
      });
      this.#signIns.set(name, signIn);
    }
    return signIn;
  }

  // OAuth2 client credentials (RFC 6749 §4.4): one token per scheme, shared by concurrent calls,
  // refreshed 30 s before it expires or after the upstream rejects it.
  async #clientCredentials(
    name: string,
    tokenUrl: string,
    scopes: string[],
    signal: AbortSignal,
  ): Promise<string> {
    const cached = this.#tokens.get(name);
    if (cached) {
      const token = await cached.catch(() => undefined);
      if (token && token.expiresAt > Date.now()) return token.value;
      if (this.#tokens.get(name) === cached) this.#tokens.delete(name);
    }
    let pending = this.#tokens.get(name);
    if (!pending) {
      pending = this.#fetchToken(name, tokenUrl, scopes, signal);
      this.#tokens.set(name, pending);
      pending.catch(() => this.#tokens.get(name) === pending && this.#tokens.delete(name));
    }
    return (await pending).value;
  }

  async #fetchToken(
    name: string,
    tokenUrl: string,
    scopes: string[],
    signal: AbortSignal,
  ): Promise<CachedToken> {
    const id = this.#env[credentialVariable(name, 'CLIENT_ID')] ?? '';
    const secret = this.#env[credentialVariable(name, 'CLIENT_SECRET')] ?? '';
    const configured = this.#env[credentialVariable(name, 'SCOPES')];
    const scope = configured ?? scopes.join(' ');
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) form.set('scope', scope);
    try {
      const { request } = await import('undici');
      const dispatcher = await this.#dispatcher?.();
      const response = await request(tokenUrl, {
        ...(dispatcher ? { dispatcher } : {}),
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
        },
        body: form.toString(),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.#timeoutMs)]),
      });
      const bytes = await readResponseBody(
        response.body,
        MAX_AUTH_RESPONSE_BYTES,
        () => new Error(`the answer is larger than ${mebibytes(MAX_AUTH_RESPONSE_BYTES)}`),
      );
      const text = bytes.toString('utf8');
      if (response.statusCode >= 400) throw new Error(`HTTP ${response.statusCode}: ${clip(text, 500)}`);
      const json = JSON.parse(text) as { access_token?: unknown; expires_in?: unknown } | null;
      // `null` parses too, and a number or a list: none is a token answer.
      if (typeof json !== 'object' || json === null || typeof json.access_token !== 'string')
        throw new Error('the answer has no access_token');
      const lifetime = typeof json.expires_in === 'number' ? json.expires_in : 3600;
      return { value: json.access_token, expiresAt: Date.now() + Math.max(0, lifetime - 30) * 1000 };
    } catch (error) {
      throw new BridgeError(
        'upstream_failed',
        `cannot get an OAuth2 token for security scheme "${name}" from ${tokenUrl}: ${describeError(error)}`,
        { cause: error },
      );
    }
  }
}

/** The token URL of an OAuth2 scheme's client-credentials flow (OpenAPI 3 or Swagger 2 `application`). */
function clientCredentialsUrl(definition: Json): string | undefined {
  if (isObject(definition.flows) && isObject(definition.flows.clientCredentials)) {
    const url = definition.flows.clientCredentials.tokenUrl;
    return typeof url === 'string' ? url : undefined;
  }
  if (definition.flow === 'application' && typeof definition.tokenUrl === 'string')
    return definition.tokenUrl;
  return undefined;
}

/**
 * The authorization-code flow of an OAuth2 scheme (OpenAPI 3 `authorizationCode`, Swagger 2
 * `accessCode`), with every scope it declares: one sign-in then serves all the source's operations.
 */
function authorizationCodeFlow(
  definition: Json,
): { authorizationUrl: string; tokenUrl: string; scopes: string[] } | undefined {
  const flow =
    isObject(definition.flows) && isObject(definition.flows.authorizationCode)
      ? definition.flows.authorizationCode
      : definition.flow === 'accessCode'
        ? definition
        : undefined;
  if (!flow || typeof flow.authorizationUrl !== 'string' || typeof flow.tokenUrl !== 'string')
    return undefined;
  const scopes = isObject(flow.scopes) ? Object.keys(flow.scopes) : [];
  return { authorizationUrl: flow.authorizationUrl, tokenUrl: flow.tokenUrl, scopes };
}

// `fetch` through the source's own pool: a sign-in's token requests get the same address checks
// as its calls (see `HttpSender.dispatcher`).
function fetchThrough(
  pool: () => Promise<Dispatcher>,
): (url: string, init: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const [{ fetch: undiciFetch }, dispatcher] = await Promise.all([import('undici'), pool()]);
    return (await undiciFetch(url, { ...(init as object), dispatcher })) as unknown as Response;
  };
}
