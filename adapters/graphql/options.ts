import { z } from 'zod';
import {
  BridgeError,
  booleanFlag,
  type FlagValues,
  headerFlags,
  integerFlag,
  type JsonSchema,
  listFlag,
  stringFlag,
  withFlags,
} from '../../src/index.js';
import type { GraphqlOAuth } from './sign-in.js';

/** How a custom scalar is described to clients: a JSON Schema type, a string format, or a schema. */
export type ScalarMapping = string | JsonSchema;

/**
 * Everything the GraphQL adapter needs, from flags or from a config file (same shape for both).
 */
export interface GraphqlOptions {
  /** The GraphQL endpoint every request is POSTed to. */
  endpoint: string;
  /** An SDL (`.graphql`) or introspection JSON file used instead of introspecting the endpoint. */
  schema?: string;
  /** A directory of `.graphql` files: one tool per named operation. */
  operations?: string;
  /** Headers sent with every request (introspection included); `${VAR}` reads the environment. */
  headers?: Record<string, string>;
  /** Also offer `graphql_schema`, `graphql_query` (and `graphql_mutate` unless mutations are `none`). */
  generic?: boolean;
  /** Whether root Mutation fields become tools. Default `all`. */
  mutations?: 'none' | 'all';
  /** Custom scalar name → JSON Schema type (`integer`, `any`, …), string format (`date-time`) or schema. */
  scalars?: Record<string, ScalarMapping>;
  /** Object levels selected below a root field. Default 1. */
  depth?: number;
  /** Fields selected per object. Default 15. */
  breadth?: number;
  /** Milliseconds before a request to the endpoint is abandoned. Default 30,000. */
  timeout?: number;
  /** Sign each caller in with OAuth 2.1 (authorization code + PKCE) through URL elicitation. */
  oauth?: GraphqlOAuth;
}

export const DEFAULT_DEPTH = 1;
export const DEFAULT_BREADTH = 15;
export const DEFAULT_TIMEOUT = 30_000;

/** The longest time limit of a request, flag or config alike: one hour. */
const MAX_TIMEOUT = 3_600_000;

export const graphqlConfigSchema = z
  .object({
    endpoint: z
      .string()
      .url()
      .refine((url) => /^https?:\/\//i.test(url), 'must be an http or https URL')
      .describe('The GraphQL endpoint URL; calls go there.'),
    schema: z
      .string()
      .min(1)
      .optional()
      .describe('An SDL or introspection-JSON file instead of introspecting the endpoint.'),
    operations: z
      .string()
      .min(1)
      .optional()
      .describe('A directory of .graphql files: one tool per operation.'),
    headers: z
      .record(z.string(), z.string())
      .optional()
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the literal syntax users write
      .describe('Headers for introspection and calls; write secrets as ${VAR}.'),
    generic: z.boolean().optional().describe('Also offer graphql_schema, graphql_query and graphql_mutate.'),
    mutations: z
      .enum(['none', 'all'])
      .optional()
      .describe('Whether mutation fields become tools (default all).'),
    scalars: z
      .record(z.string(), z.union([z.string(), z.record(z.string(), z.unknown())]))
      .optional()
      .describe('Custom scalar → JSON Schema type, format or schema (e.g. DateTime: date-time).'),
    depth: z.number().int().min(0).max(10).optional().describe('Nesting depth of generated selections.'),
    breadth: z
      .number()
      .int()
      .min(1)
      .max(200)
      .optional()
      .describe('Fields per object in generated selections.'),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(MAX_TIMEOUT)
      .optional()
      .describe('Time limit of a call, in milliseconds (at most one hour).'),
    oauth: z
      .object({
        authorizationUrl: z.string().url().describe("The authorization server's authorization endpoint."),
        tokenUrl: z.string().url().describe('Its token endpoint.'),
        scopes: z.array(z.string().min(1)).optional().describe('Scopes to ask for.'),
        name: z
          .string()
          .min(1)
          .optional()
          .describe('Names the variables BRIDGE_<NAME>_CLIENT_ID, _CLIENT_SECRET, _TOKEN (default graphql).'),
      })
      .strict()
      .optional()
      .describe('Sign callers in (OAuth authorization code + PKCE) through URL elicitation.'),
  })
  .strict() as z.ZodType<GraphqlOptions>;

export const graphqlFlags = {
  schema: { type: 'string' },
  operations: { type: 'string' },
  header: { type: 'string', multiple: true },
  generic: { type: 'boolean' },
  mutations: { type: 'string' },
  scalar: { type: 'string', multiple: true },
  depth: { type: 'string' },
  breadth: { type: 'string' },
  timeout: { type: 'string' },
  'oauth-authorization-url': { type: 'string' },
  'oauth-token-url': { type: 'string' },
  'oauth-scope': { type: 'string', multiple: true },
} as const;

export const graphqlUsage = `Usage: bridge graphql <endpoint-url> [flags]

Serves a GraphQL API as MCP tools: one per root Query and Mutation field (with a generated
selection set), one per operation in --operations, and optionally generic schema/query/mutate tools.

Arguments:
  <endpoint-url>           the GraphQL endpoint (http or https); requests are POSTed as JSON

GraphQL flags:
  --schema FILE            read the schema from an SDL (.graphql) or introspection JSON file
                           instead of introspecting the endpoint
  --operations DIR         one tool per named query/mutation in the .graphql files of DIR
                           (the comment lines above an operation become its description)
  --header 'Name: value'   send this header with every request, introspection included
                           (repeatable; \${VAR} in the value reads the environment variable VAR)
  --generic                also offer graphql_schema (reads one type or searches names),
                           graphql_query (read-only, refuses mutations) and graphql_mutate
                           (unless --mutations none)
  --mutations none|all     whether root Mutation fields become tools (default all)
  --scalar Name=TYPE       how the custom scalar Name is described: a JSON Schema type
                           (string, integer, number, boolean, object, array), "any" for any
                           JSON value, a string format (date-time, date, uri, email, uuid…)
                           or an inline JSON Schema (repeatable; default: string)
  --depth N                object levels selected below each root field (default ${DEFAULT_DEPTH})
  --breadth N              fields selected per object (default ${DEFAULT_BREADTH})
  --timeout MS             abandon a request to the endpoint after MS milliseconds
                           (default ${DEFAULT_TIMEOUT})
  --oauth-authorization-url URL, --oauth-token-url URL
                           sign each caller in (OAuth authorization code + PKCE) through
                           the client: client id and secret from BRIDGE_GRAPHQL_CLIENT_ID and
                           BRIDGE_GRAPHQL_CLIENT_SECRET (BRIDGE_GRAPHQL_TOKEN skips sign-in)
  --oauth-scope SCOPE      a scope to ask for when signing in (repeatable)`;

/** The flag of each option field, for messages about values the schema refuses. */
export const graphqlFlagNames: Record<string, string> = {
  endpoint: 'the endpoint URL',
  schema: '--schema',
  operations: '--operations',
  headers: '--header',
  generic: '--generic',
  mutations: '--mutations',
  scalars: '--scalar',
  depth: '--depth',
  breadth: '--breadth',
  timeout: '--timeout',
  oauth: '--oauth-authorization-url / --oauth-token-url',
};

/** Maps `bridge graphql` positionals and flags to options; `graphqlConfigSchema` checks them. */
export function parseGraphqlFlags(positionals: string[], values: FlagValues): GraphqlOptions {
  if (positionals.length !== 1) {
    throw new BridgeError(
      'invalid_input',
      positionals.length === 0
        ? 'bridge graphql expects the endpoint URL, e.g. bridge graphql https://api.example.com/graphql'
        : `bridge graphql expects one endpoint URL, got ${positionals.length} arguments: ${positionals.join(' ')}`,
    );
  }
  const scalars = listFlag(values, 'scalar');
  const authorizationUrl = stringFlag(values, 'oauth-authorization-url');
  const tokenUrl = stringFlag(values, 'oauth-token-url');
  if ((authorizationUrl === undefined) !== (tokenUrl === undefined)) {
    throw new BridgeError(
      'invalid_input',
      '--oauth-authorization-url and --oauth-token-url go together: give both',
    );
  }
  const scopes = listFlag(values, 'oauth-scope');
  const oauth: GraphqlOAuth | undefined =
    authorizationUrl !== undefined && tokenUrl !== undefined
      ? { authorizationUrl, tokenUrl, ...(scopes ? { scopes } : {}) }
      : undefined;
  return withFlags<GraphqlOptions>(
    { endpoint: positionals[0] as string },
    {
      schema: stringFlag(values, 'schema'),
      operations: stringFlag(values, 'operations'),
      headers: headerFlags(values),
      generic: booleanFlag(values, 'generic'),
      mutations: stringFlag(values, 'mutations') as GraphqlOptions['mutations'],
      scalars: scalars ? Object.fromEntries(scalars.map(parseScalarFlag)) : undefined,
      depth: integerFlag(values, 'depth'),
      breadth: integerFlag(values, 'breadth'),
      timeout: integerFlag(values, 'timeout'),
      oauth,
    },
  );
}

function parseScalarFlag(raw: string): [string, ScalarMapping] {
  const equals = raw.indexOf('=');
  const name = raw.slice(0, Math.max(equals, 0)).trim();
  const value = raw.slice(equals + 1).trim();
  if (equals <= 0 || !/^[_A-Za-z][_0-9A-Za-z]*$/.test(name) || value === '') {
    throw new BridgeError(
      'invalid_input',
      `--scalar expects Name=TYPE (e.g. DateTime=date-time), got "${raw}"`,
    );
  }
  if (!value.startsWith('{')) return [name, value];
  try {
    return [name, JSON.parse(value) as JsonSchema];
  } catch (error) {
    throw new BridgeError('invalid_input', `--scalar ${name}: the inline JSON Schema does not parse`, {
      cause: error,
    });
  }
}
