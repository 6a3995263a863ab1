import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type ClientLike } from 'oidc-provider';
import { browseSignIn } from '../helpers/browse-sign-in.js';

/**
 * A real OAuth 2.1 / OpenID authorization server (oidc-provider) on 127.0.0.1, port 0, with one
 * confidential native client for the bridge (any loopback port may receive its redirects, as
 * RFC 8252 asks), refresh tokens, introspection, and oidc-provider's development
 * login and consent pages (any login name, any password).
 */
export interface AuthorizationServer extends AsyncDisposable {
  issuer: string;
  client: { id: string; secret: string };
  /** Asks the server whether a token is active, and for whom (RFC 7662). */
  introspect(token: string): Promise<{ active: boolean; sub?: string; scope?: string }>;
  /**
   * Signs `login` in (authorization code with PKCE, `openid` and `scope`) as the client of
   * `options.resourceServer`, and returns the token response: its ID token and its JWT access token.
   */
  signIn(login: string, scope: string): Promise<{ id_token: string; access_token: string }>;
}

export interface AuthorizationServerOptions {
  /**
   * A resource server to issue JWT access tokens (RFC 9068) for, with the scopes it knows. A
   * client is registered with the resource URL as its id, so its ID tokens name the resource as
   * their audience too: `signIn` gets both.
   */
  resourceServer?: { resource: string; scopes: string[] };
}

export async function startAuthorizationServer(
  options: AuthorizationServerOptions = {},
): Promise<AuthorizationServer> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const client = { id: 'bridge', secret: 'bridge-secret' };
  const api = { id: 'items-api', secret: 'items-api-secret' };
  const resourceServer = options.resourceServer;
  const native = { id: resourceServer?.resource ?? 'none', secret: 'resource-client-secret' };
  const provider = new Provider(issuer, {
    clients: [
      ...(resourceServer
        ? [
            {
              client_id: native.id,
              client_secret: native.secret,
              application_type: 'native',
              redirect_uris: ['http://127.0.0.1/signed-in'],
              grant_types: ['authorization_code'],
              response_types: ['code'],
              token_endpoint_auth_method: 'client_secret_basic',
            },
          ]
        : []),
      {
        client_id: client.id,
        client_secret: client.secret,
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/oauth/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: api.id,
        client_secret: api.secret,
        redirect_uris: [],
        grant_types: [],
        response_types: [],
      },
    ],
    scopes: ['openid', 'items:read'],
    features: {
      devInteractions: { enabled: true },
      introspection: { enabled: true },
      ...(resourceServer
        ? {
            resourceIndicators: {
              enabled: true,
              defaultResource: () => resourceServer.resource,
              useGrantedResource: () => true,
              getResourceServerInfo: (_ctx: unknown, indicator: string) => {
                if (indicator !== resourceServer.resource) throw new Error(`unknown resource ${indicator}`);
                return {
                  scope: resourceServer.scopes.join(' '),
                  audience: indicator,
                  accessTokenFormat: 'jwt',
                  jwt: { sign: { alg: 'RS256' } },
                };
              },
            },
          }
        : {}),
    },
    pkce: { required: () => true },
    // Every sign-in of the bridge gets a refresh token (no offline_access dance in tests).
    issueRefreshToken: async (_ctx: unknown, c: ClientLike) => c.grantTypeAllowed('refresh_token'),
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    cookies: { keys: ['test-only-cookie-key'] },
  });
  // oidc-provider warns on stdout-less dev setups; tests need no noise.
  provider.on('server_error', () => {});
  http.on('request', provider.callback());

  const basic = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const form = async (path: string, who: { id: string; secret: string }, body: Record<string, string>) => {
    const response = await fetch(`${issuer}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(who.id, who.secret),
      },
      body: new URLSearchParams(body).toString(),
    });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
    return response;
  };
  return {
    issuer,
    client,
    async introspect(token) {
      return (await (await form('/token/introspection', api, { token })).json()) as never;
    },
    async signIn(login, scope) {
      if (!resourceServer) throw new Error('signIn needs options.resourceServer');
      const verifier = randomBytes(32).toString('base64url');
      // Any loopback port may receive a native client's redirect: this server's own, whose 404
      // page ends the browsing with the code in its URL.
      const redirectUri = `${issuer}/signed-in`;
      const authorize = new URL('/auth', issuer);
      authorize.search = new URLSearchParams({
        client_id: native.id,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: `openid ${scope}`,
        resource: resourceServer.resource,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        state: 'test-state',
      }).toString();
      const landed = await browseSignIn(authorize.href, { login });
      const code = new URL(landed.url).searchParams.get('code');
      if (!code)
        throw new Error(`the sign-in ended without a code, at ${landed.url}: ${landed.text.slice(0, 300)}`);
      const tokens = await form('/token', native, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        resource: resourceServer.resource,
      });
      return (await tokens.json()) as never;
    },
    async [Symbol.asyncDispose]() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** One request the protected API received: who it was for (from introspection), or why refused. */
export interface ApiRequest {
  path: string;
  token?: string;
  subject?: string;
  status: number;
}

/**
 * An HTTP API that accepts only bearer tokens the authorization server says are active
 * (introspection on every request), and answers `GET /me/items` with the token's subject, and a
 * GraphQL POST with `{ data: { me: { login } } }`.
 */
export interface ProtectedApi extends AsyncDisposable {
  url: string;
  requests: ApiRequest[];
  /** From now on refuse `token` with 401, as an API does with a token it holds expired. */
  refuse(token: string): void;
}

export async function startProtectedApi(authorization: AuthorizationServer): Promise<ProtectedApi> {
  const requests: ApiRequest[] = [];
  const refused = new Set<string>();
  const server: Server = createServer((req: IncomingMessage, res) => {
    void (async () => {
      const path = req.url ?? '/';
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const answer = (status: number, body: unknown, subject?: string) => {
        requests.push({ path, ...(token ? { token } : {}), ...(subject ? { subject } : {}), status });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const seen = token && !refused.has(token) ? await authorization.introspect(token) : { active: false };
      if (!seen.active || !seen.sub) return answer(401, { error: 'invalid_token' });
      // POST is GraphQL (any query: `{ me { login } }` is the only one the schema allows).
      if (req.method === 'POST') return answer(200, { data: { me: { login: seen.sub } } }, seen.sub);
      return answer(200, { owner: seen.sub, items: [`${seen.sub}'s first item`] }, seen.sub);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    refuse: (token) => refused.add(token),
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** An OpenAPI document for the protected API, its one operation secured by an authorization-code flow. */
export function protectedApiSpec(api: ProtectedApi, authorization: AuthorizationServer): string {
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'Items', version: '1.0.0' },
    servers: [{ url: api.url }],
    components: {
      securitySchemes: {
        items_auth: {
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: `${authorization.issuer}/auth`,
              tokenUrl: `${authorization.issuer}/token`,
              scopes: { openid: 'who you are', 'items:read': 'read your items' },
            },
          },
        },
      },
    },
    paths: {
      '/me/items': {
        get: {
          operationId: 'listMyItems',
          summary: 'Lists the signed-in user’s items',
          security: [{ items_auth: ['items:read'] }],
          responses: { '200': { description: 'The items' } },
        },
      },
    },
  });
}
