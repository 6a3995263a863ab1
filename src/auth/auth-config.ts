import { resolve } from 'node:path';
import { z } from 'zod';
import type { FlagValues } from '../command.js';
import { once } from '../once.js';

/**
 * The `server.auth` section of a config file: the same settings as the authentication flags, in
 * camelCase. Tokens are never inline: they come from an environment variable or a file.
 *
 * ```yaml
 * server:
 *   transport: http
 *   host: 0.0.0.0
 *   port: 8080
 *   auth:
 *     mode: jwt
 *     issuer: https://auth.example.com/
 *     resource: https://mcp.example.com/mcp
 *     scopes: { read: repo:read, write: repo:write, tools: { delete_repo: [admin] } }
 * ```
 *
 * Built on first use, like the config file's schemas: see `once`.
 */
export const authConfigSchema = once(() =>
  z
    .object({
      mode: z.enum(['none', 'token', 'jwt']).optional().describe('Like --auth.'),
      tokensEnv: z.string().min(1).optional().describe('Environment variable listing the accepted tokens.'),
      tokensFile: z
        .string()
        .min(1)
        .optional()
        .describe('File listing the accepted tokens (relative to the config).'),
      jwksUrl: z
        .string()
        .min(1)
        .optional()
        .describe('Where the signing keys of JWT access tokens are published.'),
      issuer: z.string().min(1).optional().describe('The "iss" JWT access tokens must carry.'),
      jwtTypes: z
        .array(z.string())
        .optional()
        .describe('Like --jwt-type: "typ" headers accepted besides at+jwt ("" for none).'),
      resource: z.string().min(1).optional().describe("This server's public URL (the token audience)."),
      authorizationServers: z.array(z.string().min(1)).optional().describe('Issuers named in the metadata.'),
      trustIdentityHeader: z
        .string()
        .min(1)
        .optional()
        .describe('Like --trust-identity-header: the header an authenticating proxy names the user in.'),
      trustedProxies: z
        .array(z.string().min(1))
        .optional()
        .describe('Like --trusted-proxy: addresses or networks of the proxies allowed to call.'),
      scopes: z
        .object({
          read: z.string().optional().describe('Scope read-only tools need ("" for none). Default read.'),
          write: z.string().optional().describe('Scope every other tool needs; implies read. Default write.'),
          tools: z
            .record(z.string(), z.array(z.string().min(1)))
            .optional()
            .describe('Per-tool scopes, keyed by the served tool name.'),
        })
        .strict()
        .optional(),
    })
    .strict(),
);

export type AuthConfig = z.infer<ReturnType<typeof authConfigSchema>>;

/**
 * The config section as flag values, so one function (`authFromFlags`) validates both. Flags given
 * on the command line win: pass them as `flags`. `baseDir` resolves a relative `tokensFile`.
 */
export function authFlagsFromConfig(
  config: AuthConfig | undefined,
  flags: FlagValues,
  baseDir: string,
): FlagValues {
  if (!config) return flags;
  const fromConfig: FlagValues = {
    auth: config.mode,
    'auth-tokens-env': config.tokensEnv,
    'auth-tokens-file': config.tokensFile === undefined ? undefined : resolve(baseDir, config.tokensFile),
    'jwks-url': config.jwksUrl,
    issuer: config.issuer,
    'jwt-type': config.jwtTypes,
    resource: config.resource,
    'authorization-server': config.authorizationServers,
    'trust-identity-header': config.trustIdentityHeader,
    'trusted-proxy': config.trustedProxies,
    'scope-read': config.scopes?.read,
    'scope-write': config.scopes?.write,
    'tool-scope': config.scopes?.tools
      ? Object.entries(config.scopes.tools).map(([tool, scopes]) => `${tool}=${scopes.join(',')}`)
      : undefined,
  };
  const merged: FlagValues = { ...flags };
  for (const [flag, value] of Object.entries(fromConfig)) {
    if (value !== undefined && merged[flag] === undefined) merged[flag] = value;
  }
  return merged;
}
