import { z } from 'zod';
import {
  annotationsOverrideSchema,
  BridgeError,
  booleanFlag,
  type FlagValues,
  headerFlags,
  integerFlag,
  listFlag,
  stringFlag,
  withFlags,
} from '../../src/index.js';

/** The adapter's options: the same object from flags and from a config-file source entry. */
export const openApiOptionsSchema = z
  .object({
    spec: z
      .string()
      .min(1)
      .describe('Path (relative to this file) or http(s) URL of the spec, JSON or YAML.'),
    baseUrl: z.string().url().optional().describe("Call this base URL instead of the spec's servers / host."),
    headers: z
      .record(z.string(), z.string())
      .optional()
      // biome-ignore lint/suspicious/noTemplateCurlyInString: documents the ${VAR} syntax the adapter expands
      .describe('Headers sent on every call; ${VAR} in a value is read from the environment.'),
    validate: z.boolean().optional().describe('Validate the spec strictly before serving.'),
    allowRemoteRefs: z.boolean().optional().describe('Follow $refs to http(s) URLs.'),
    refsWithin: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Directory (relative to this file) whose files the spec's local $refs may read; default the spec's own directory.",
      ),
    tools: z
      .enum(['all', 'dynamic', 'auto'])
      .optional()
      .describe(
        'One tool per operation, four search/describe/call meta-tools, or dynamic above 100 operations (default).',
      ),
    include: z
      .array(z.string())
      .optional()
      .describe('Serve only operations matching one of: tag:NAME, method:GET, path:/glob, an operationId.'),
    exclude: z.array(z.string()).optional().describe('Leave out operations matching one of these filters.'),
    timeoutMs: z.number().int().min(1).optional().describe('Upstream time limit per call (default 30000).'),
    retries: z
      .number()
      .int()
      .min(0)
      .max(10)
      .optional()
      .describe('Retries of idempotent calls on 429/502/503/504 and connection errors (default 2).'),
    relaxOutput: z.boolean().optional().describe('Declare no outputSchema and never check responses.'),
    forwardAuth: z.boolean().optional().describe("Pass the MCP client's Authorization header upstream."),
    authSchemes: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "The spec's security schemes given their BRIDGE_<SCHEME>_* variables; default every scheme of a local spec, none of a spec fetched by URL.",
      ),
    cache: z
      .boolean()
      .optional()
      .describe('Read and write the conversion cache of a local spec (default true).'),
    overrides: z
      .record(
        z.string(),
        z
          .object({
            name: z.string().min(1).optional(),
            title: z.string().optional(),
            description: z.string().optional(),
            annotations: annotationsOverrideSchema.optional(),
            timeoutMs: z.number().int().positive().optional(),
            exclude: z.boolean().optional(),
          })
          .strict(),
      )
      .optional()
      .describe(
        'Per operation (operationId or "GET /path"): the fields of the x-mcp extension, winning over the spec.',
      ),
  })
  .strict();

export type OpenApiOptions = z.infer<typeof openApiOptionsSchema>;

export const flagOptions = {
  'base-url': { type: 'string' },
  header: { type: 'string', multiple: true },
  validate: { type: 'boolean' },
  'allow-remote-refs': { type: 'boolean' },
  'refs-within': { type: 'string' },
  tools: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  retries: { type: 'string' },
  'relax-output': { type: 'boolean' },
  'forward-auth': { type: 'boolean' },
  'auth-scheme': { type: 'string', multiple: true },
  'no-cache': { type: 'boolean' },
} as const;

/** The flag of each option field, for messages about values the schema refuses. */
export const flagNames: Record<string, string> = {
  spec: 'the spec',
  baseUrl: '--base-url',
  headers: '--header',
  validate: '--validate',
  allowRemoteRefs: '--allow-remote-refs',
  refsWithin: '--refs-within',
  tools: '--tools',
  include: '--include',
  exclude: '--exclude',
  timeoutMs: '--timeout',
  retries: '--retries',
  relaxOutput: '--relax-output',
  forwardAuth: '--forward-auth',
  authSchemes: '--auth-scheme',
  cache: '--no-cache',
};

/** Maps `bridge openapi SPEC [flags]` to options; `openApiOptionsSchema` checks them. */
export function parseFlags(positionals: string[], values: FlagValues): OpenApiOptions {
  if (positionals.length !== 1) {
    throw new BridgeError(
      'invalid_input',
      positionals.length === 0
        ? 'bridge openapi needs the spec: a file path or URL (JSON or YAML)'
        : `bridge openapi takes one spec, got ${positionals.length}: ${positionals.join(' ')}`,
    );
  }
  // An empty name would be dropped as a list flag's empty items are, and the default taken silently.
  const named = values['auth-scheme'];
  if ((Array.isArray(named) ? named : [named]).some((name) => name === '')) {
    throw new BridgeError(
      'invalid_input',
      '--auth-scheme needs the name of one of the spec\'s security schemes, got ""',
    );
  }
  return withFlags<OpenApiOptions>(
    { spec: positionals[0] as string },
    {
      baseUrl: stringFlag(values, 'base-url'),
      headers: headerFlags(values),
      validate: booleanFlag(values, 'validate'),
      allowRemoteRefs: booleanFlag(values, 'allow-remote-refs'),
      refsWithin: stringFlag(values, 'refs-within'),
      tools: stringFlag(values, 'tools') as OpenApiOptions['tools'],
      include: listFlag(values, 'include'),
      exclude: listFlag(values, 'exclude'),
      timeoutMs: integerFlag(values, 'timeout'),
      retries: integerFlag(values, 'retries'),
      relaxOutput: booleanFlag(values, 'relax-output'),
      forwardAuth: booleanFlag(values, 'forward-auth'),
      authSchemes: listFlag(values, 'auth-scheme'),
      cache: values['no-cache'] === true ? false : undefined,
    },
  );
}
