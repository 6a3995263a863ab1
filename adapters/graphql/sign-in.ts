import { credentialVariable, type ToolContext, UpstreamSignIn } from '../../src/index.js';

/** Upstream sign-in for a GraphQL endpoint: the same OAuth 2.1 authorization-code flow as OpenAPI's. */
export interface GraphqlOAuth {
  /** The authorization server's authorization endpoint. */
  authorizationUrl: string;
  /** Its token endpoint. */
  tokenUrl: string;
  /** Scopes to ask for. */
  scopes?: string[];
  /** Names the environment variables: `BRIDGE_<NAME>_CLIENT_ID`, `…_CLIENT_SECRET`, `…_TOKEN`. Default `graphql`. */
  name?: string;
}

/** What a call sends: the `Authorization` header for the caller, and what to do when it is refused. */
export interface EndpointAuth {
  headers(context: ToolContext): Promise<Record<string, string>>;
  /** The endpoint answered 401 to `headers`: whether a retry may get a fresh token. */
  rejected(context: ToolContext, headers: Record<string, string>): boolean;
}

/**
 * A ready token (`BRIDGE_<NAME>_TOKEN`) wins; otherwise, with a client id, each caller signs in
 * through URL elicitation on first use (see `UpstreamSignIn`). `undefined` when neither is set.
 */
export function endpointAuth(
  oauth: GraphqlOAuth,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  endpoint: string,
): EndpointAuth | undefined {
  const name = oauth.name ?? 'graphql';
  const token = env[credentialVariable(name, 'TOKEN')];
  if (token) {
    return { headers: async () => ({ authorization: `Bearer ${token}` }), rejected: () => false };
  }
  const clientId = env[credentialVariable(name, 'CLIENT_ID')];
  if (!clientId) return undefined;
  const secret = env[credentialVariable(name, 'CLIENT_SECRET')];
  const signIn = new UpstreamSignIn({
    label: `the GraphQL API's sign-in "${name}"`,
    audience: endpoint,
    authorizationUrl: oauth.authorizationUrl,
    tokenUrl: oauth.tokenUrl,
    clientId,
    ...(secret ? { clientSecret: secret } : {}),
    scopes: oauth.scopes ?? [],
    timeoutMs,
    alternative: credentialVariable(name, 'TOKEN'),
  });
  return {
    headers: async (context) => ({ authorization: `Bearer ${await signIn.accessToken(context)}` }),
    rejected(context, headers) {
      const used = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
      if (used) signIn.rejected(context.caller, used);
      return used !== undefined;
    },
  };
}
