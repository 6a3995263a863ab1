import type { ParseArgsConfig } from 'node:util';
import type { FlagValues } from '../command.js';
import { BridgeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { quote } from '../quote-input.js';
import { jsonRpcErrorResponse } from '../transports/json-rpc-response.js';
import { isLoopback, type ListenAddress } from '../transports/listen-address.js';
import { RefusalLog } from '../transports/refusal-log.js';
import { proxyIdentity, trustedProxies } from './identity-header.js';
import { jwtVerifier } from './jwt-verifier.js';
import { type HttpProtection, protectHttp } from './protect-http.js';
import { parseToolScopes, ScopePolicy } from './scopes.js';
import { loadStaticTokens, staticTokenVerifier } from './static-tokens.js';
import type { TokenVerifier } from './token-verifier.js';

/** The authentication flags, merged into every command's flags. */
export const AUTH_OPTIONS = {
  auth: { type: 'string' },
  'auth-tokens-env': { type: 'string' },
  'auth-tokens-file': { type: 'string' },
  'jwks-url': { type: 'string' },
  issuer: { type: 'string' },
  'jwt-type': { type: 'string', multiple: true },
  resource: { type: 'string' },
  'authorization-server': { type: 'string', multiple: true },
  'scope-read': { type: 'string' },
  'scope-write': { type: 'string' },
  'tool-scope': { type: 'string', multiple: true },
  'trust-identity-header': { type: 'string' },
  'trusted-proxy': { type: 'string', multiple: true },
} as const satisfies ParseArgsConfig['options'];

export const AUTH_USAGE = `Authentication flags (with --http):
  --auth none|token|jwt    check bearer tokens on every request (default: token or jwt when their
                           flags are given; none on a loopback bind; required on any other bind)
  --auth-tokens-env VAR    accept the tokens listed in environment variable VAR (--auth token)
  --auth-tokens-file FILE  accept the tokens listed in FILE, one "TOKEN [SUBJECT [SCOPES]]" a line
  --jwks-url URL           verify JWT access tokens with the keys published at URL (--auth jwt;
                           default: the jwks_uri of the issuer's metadata)
  --issuer URL             the "iss" JWT access tokens must carry (default: the one
                           --authorization-server)
  --jwt-type TYPE          also accept JWTs whose "typ" header is TYPE, e.g. JWT, besides at+jwt
                           (repeatable; "" for none): for authorization servers that do not type
                           their access tokens, whose ID tokens then pass if their audience does
  --resource URL           this server's public URL: the audience tokens must name and the
                           "resource" of the metadata (default: the listening URL)
  --authorization-server URL
                           an authorization server named in the metadata (repeatable; default:
                           the issuer)
  --scope-read NAME        scope read-only tools need (default read; "" for none)
  --scope-write NAME       scope every other tool needs; it implies the read scope (default write)
  --tool-scope TOOL=SCOPES scope(s) one tool needs instead, comma-separated (repeatable)
  --trust-identity-header NAME
                           behind an authenticating reverse proxy: each user named in header NAME
                           (e.g. X-Forwarded-User) is a caller of their own; needs --trusted-proxy
                           and --auth none
  --trusted-proxy ADDR     address or network (10.0.0.0/8) of a proxy allowed to set that header
                           (repeatable); the header from any other address is refused`;

const TOKEN_FLAGS = ['auth-tokens-env', 'auth-tokens-file'] as const;
const JWT_FLAGS = ['jwks-url', 'issuer', 'jwt-type'] as const;
const SHARED_FLAGS = ['resource', 'authorization-server', 'scope-read', 'scope-write', 'tool-scope'] as const;
const PROXY_FLAGS = ['trust-identity-header', 'trusted-proxy'] as const;

/** Shortest static token accepted on a bind other people can reach (about 96 bits of base64). */
export const MIN_EXPOSED_TOKEN_LENGTH = 16;

/**
 * Turns the authentication flags into the HTTP protection, or `undefined` when the endpoint is
 * served without authentication. Refuses to expose a non-loopback bind without an explicit choice.
 * Throws a `BridgeError` (`invalid_input`) naming the flag for every inconsistent combination.
 */
export function authFromFlags(
  values: FlagValues,
  address: ListenAddress | undefined,
  context: { log: Logger; env: NodeJS.ProcessEnv; cwd: string },
): HttpProtection | undefined {
  const given = (flag: string) => values[flag] !== undefined;
  const anyGiven = ['auth', ...TOKEN_FLAGS, ...JWT_FLAGS, ...SHARED_FLAGS, ...PROXY_FLAGS].filter(given);
  if (!address) {
    if (anyGiven.length > 0) throw invalid(`--${anyGiven[0]} applies only to --http (stdio needs no tokens)`);
    return undefined;
  }
  const mode = modeOf(values, address);
  if (mode === 'none') {
    const stray = anyGiven.filter(
      (flag) => flag !== 'auth' && !(PROXY_FLAGS as readonly string[]).includes(flag),
    );
    if (stray.length > 0) throw invalid(`--${stray[0]} has no effect with --auth none`);
    const proxied = proxyFromFlags(values, context.log);
    if (!isLoopback(address.host)) {
      context.log.warn(
        proxied
          ? `serving ${address.host} without bearer tokens: only the trusted proxies may call it, and they vouch for their users`
          : `serving ${address.host} without authentication (--auth none): anyone who can reach it can call every tool`,
      );
    }
    return proxied;
  }
  const proxyFlag = PROXY_FLAGS.find(given);
  if (proxyFlag) {
    throw invalid(
      `--${proxyFlag} applies to --auth none: the reverse proxy authenticates, the bridge does not check tokens too`,
    );
  }
  const wrongFamily = (mode === 'token' ? JWT_FLAGS : TOKEN_FLAGS).filter(given);
  if (wrongFamily.length > 0) throw invalid(`--${wrongFamily[0]} does not apply to --auth ${mode}`);

  const scopes = new ScopePolicy({
    ...(typeof values['scope-read'] === 'string' ? { read: values['scope-read'] } : {}),
    ...(typeof values['scope-write'] === 'string' ? { write: values['scope-write'] } : {}),
    tools: parseToolScopes(strings(values['tool-scope'])),
  });
  const authorizationServers = strings(values['authorization-server']).map((url) =>
    checkUrl(url, '--authorization-server'),
  );
  const resource = resourceOf(values, address, mode, context.log);

  let verifier: TokenVerifier;
  if (mode === 'token') {
    const from = {
      ...(typeof values['auth-tokens-env'] === 'string' ? { env: values['auth-tokens-env'] } : {}),
      ...(typeof values['auth-tokens-file'] === 'string' ? { file: values['auth-tokens-file'] } : {}),
    };
    const tokens = loadStaticTokens(from, context.env, context.cwd);
    const short = tokens.findIndex((entry) => entry.token.length < MIN_EXPOSED_TOKEN_LENGTH);
    if (short >= 0 && !isLoopback(address.host)) {
      throw invalid(
        `--auth token on ${address.host}: token ${short + 1} (subject "${tokens[short]?.subject}") is shorter than ${MIN_EXPOSED_TOKEN_LENGTH} characters, ` +
          'which others could guess; use a long random token, e.g. from "openssl rand -base64 32"',
      );
    }
    verifier = staticTokenVerifier(tokens, () => scopes.supported());
  } else {
    const jwks = values['jwks-url'];
    let issuer = typeof values.issuer === 'string' ? checkUrl(values.issuer, '--issuer') : undefined;
    if (issuer === undefined && authorizationServers.length === 1) issuer = authorizationServers[0];
    if (issuer === undefined) throw invalid('--auth jwt needs --issuer URL (the "iss" of the access tokens)');
    if (authorizationServers.length === 0) authorizationServers.push(issuer);
    verifier = jwtVerifier({
      issuer,
      types: strings(values['jwt-type']).map(checkJwtType),
      ...(typeof jwks === 'string' ? { jwksUrl: new URL(checkUrl(jwks, '--jwks-url')) } : {}),
    });
  }
  return protectHttp({
    verifier,
    scopes,
    ...(resource === undefined ? {} : { resource }),
    authorizationServers,
    log: context.log,
  });
}

// `--trust-identity-header` with `--trusted-proxy`: the proxy's user header names the caller.
function proxyFromFlags(values: FlagValues, log: Logger): HttpProtection | undefined {
  const header = values['trust-identity-header'];
  const proxies = strings(values['trusted-proxy']);
  if (typeof header !== 'string') {
    if (proxies.length > 0) throw invalid('--trusted-proxy applies only with --trust-identity-header NAME');
    return undefined;
  }
  let identify: ReturnType<typeof proxyIdentity>;
  let isProxy: ReturnType<typeof trustedProxies>;
  try {
    identify = proxyIdentity({ header, trustedProxies: proxies });
    isProxy = trustedProxies(proxies);
  } catch (error) {
    throw error instanceof BridgeError ? error : invalid(String(error));
  }
  const refusals = new RefusalLog(log);
  return {
    async authenticate(request, peer) {
      const identity = identify(request, peer);
      if (identity.kind === 'none') return {};
      if (identity.kind === 'user') return { authInfo: identity.authInfo };
      refusals.refused('identity header', identity.message);
      return jsonRpcErrorResponse(identity.status, -32000, identity.message);
    },
    routes: () => undefined,
    attach(bridge) {
      const flush = () => refusals.close();
      void bridge.closed?.then(flush, flush);
    },
    proxies: isProxy,
  };
}

function modeOf(values: FlagValues, address: ListenAddress): 'none' | 'token' | 'jwt' {
  const auth = values.auth;
  if (auth === 'none' || auth === 'token' || auth === 'jwt') return auth;
  if (auth !== undefined) throw invalid(`--auth expects none, token or jwt, got "${String(auth)}"`);
  if (TOKEN_FLAGS.some((flag) => values[flag] !== undefined)) return 'token';
  // The reverse proxy authenticates, and only it may call: an explicit choice of "no tokens here".
  if (values['trust-identity-header'] !== undefined) return 'none';
  if (JWT_FLAGS.some((flag) => values[flag] !== undefined)) return 'jwt';
  if (isLoopback(address.host)) return 'none';
  throw invalid(
    `--http ${address.host}:${address.port} would let anyone who can reach this machine call every tool: ` +
      'protect it with --auth token (--auth-tokens-env VAR or --auth-tokens-file FILE) or --auth jwt ' +
      '(--issuer URL --resource URL), or pass --auth none if something in front of the bridge authenticates',
  );
}

// The canonical URL tokens are issued for. Wildcard binds have no meaningful URL of their own.
function resourceOf(values: FlagValues, address: ListenAddress, mode: 'token' | 'jwt', log: Logger) {
  if (typeof values.resource === 'string') {
    const resource = checkUrl(values.resource, '--resource');
    const { protocol, hostname } = new URL(resource);
    if (protocol === 'http:' && !isLoopback(hostname)) {
      log.warn(
        `--resource ${resource} is plain http: tokens cross the network in clear text unless TLS terminates in front`,
      );
    }
    return resource;
  }
  const wildcard = address.host === '0.0.0.0' || address.host === '::';
  if (wildcard && mode === 'jwt') {
    throw invalid(
      `--auth jwt on ${address.host} needs --resource URL: the public URL clients use, which tokens must name as audience`,
    );
  }
  if (wildcard)
    log.warn('the protected-resource metadata names the bind address; set --resource to the public URL');
  if (address.port === 0) return undefined; // Known once listening.
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return `http://${host}:${address.port}/mcp`;
}

function checkUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${flag} expects an absolute http(s) URL, got "${value}"`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash) {
    throw invalid(`${flag} expects an absolute http(s) URL without a #fragment, got "${value}"`);
  }
  return value;
}

// A `typ` is a media type, its `application/` optional (RFC 7515 §4.1.9); "" stands for none.
function checkJwtType(value: string): string {
  const mediaType = /^([A-Za-z0-9][\w!#$&^.+-]*\/)?[A-Za-z0-9][\w!#$&^.+-]*$/;
  if (value === '' || (value.length <= 255 && mediaType.test(value))) return value;
  throw invalid(
    `--jwt-type (jwtTypes in a config file) expects the "typ" of a JWT, such as JWT or application/jwt ("" for a token without one), got ${quote(value)}`,
  );
}

function strings(value: FlagValues[string]): string[] {
  return Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
}

function invalid(message: string): BridgeError {
  return new BridgeError('invalid_input', message);
}
