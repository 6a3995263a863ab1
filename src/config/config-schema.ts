import { z } from 'zod';
import { authConfigSchema } from '../auth/auth-config.js';
import type { AdapterCommand } from '../command.js';
import { once } from '../once.js';

/**
 * The config file's shape, in zod. One definition serves three purposes: validating a file,
 * typing the loaded config, and generating the JSON Schema editors use (`bridge config schema`).
 * The kind-specific `options` of a source are validated by the adapter's own `configSchema`.
 * The larger schemas are built on first use (see `once`): a shorthand command (`bridge openapi …`)
 * validates no config file, and building them all cost ~25 ms of every start.
 */

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;

export const annotationsOverrideSchema = z
  .object({
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .strict()
  .describe('Replaces the hints the adapter inferred; hints left out keep their inferred value.');

const confirmSchema = z
  .enum(['never', 'destructive', 'always'])
  .describe(
    'Ask the user (form elicitation) before a call runs, showing the tool, its hints and the exact arguments: never, for tools marked destructive, or always. Default never.',
  );
const confirmFallbackSchema = z
  .enum(['refuse', 'run'])
  .describe(
    'When a call needs confirmation and the client cannot ask the user: refuse it (default) or run it.',
  );

const askMissingSchema = z
  .boolean()
  .describe(
    'When the model leaves out required arguments, ask the user for them (form elicitation) instead of failing. Default false.',
  );

const toolOverrideSchema = once(() =>
  z
    .object({
      name: z
        .string()
        .regex(TOOL_NAME, 'must be 1-64 characters of A-Z a-z 0-9 _ . -')
        .optional()
        .describe('The exact name clients see (the namespace is not added to it).'),
      title: z.string().min(1).optional().describe('A short human title for UIs.'),
      description: z.string().min(1).optional().describe('Replaces the description written for the model.'),
      annotations: annotationsOverrideSchema.optional(),
      taskSupport: z
        .enum(['forbidden', 'optional', 'required'])
        .optional()
        .describe('Whether the tool may (optional) or must (required) run as an MCP task.'),
      timeoutMs: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Milliseconds after which a call is abandoned and reported as timed out.'),
      confirm: confirmSchema.optional(),
      askMissing: askMissingSchema.optional(),
    })
    .strict(),
);

/** What every source entry has, whatever its kind. */
const commonSourceShape = once(() => ({
  namespace: z
    .string()
    .regex(NAMESPACE, 'must start with a letter or digit and use only A-Z a-z 0-9 _ . - (at most 32)')
    .optional()
    .describe(
      'Prefix for the tool names of this source: namespace "gh" turns "list_repos" into "gh_list_repos".',
    ),
  include: z
    .array(z.string().min(1))
    .optional()
    .describe('Only tools whose adapter-given name matches one of these globs (* and ?) are served.'),
  exclude: z
    .array(z.string().min(1))
    .optional()
    .describe('Tools whose adapter-given name matches one of these globs (* and ?) are not served.'),
  tools: z
    .record(z.string(), toolOverrideSchema())
    .optional()
    .describe('Per-tool overrides, keyed by the name the adapter gives the tool (before the namespace).'),
  confirm: confirmSchema.optional(),
  confirmFallback: confirmFallbackSchema.optional(),
  askMissing: askMissingSchema.optional(),
}));

// The HTTP limits beside maxBodyBytes, named like their flags (see the Serving table of the README).
const httpLimitsSchema = once(() =>
  z
    .object({
      headerTimeoutMs: z.number().int().positive().optional().describe('Like --header-timeout-ms.'),
      bodyTimeoutMs: z.number().int().positive().optional().describe('Like --body-timeout-ms.'),
      maxConnections: z.number().int().positive().optional().describe('Like --max-connections.'),
      maxConnectionsPerAddress: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Like --max-connections-per-address.'),
      maxCallsPerCaller: z.number().int().positive().optional().describe('Like --max-calls-per-caller.'),
      maxStreamsPerCaller: z.number().int().positive().optional().describe('Like --max-streams-per-caller.'),
      streamLifetimeMs: z.number().int().positive().optional().describe('Like --stream-lifetime-ms.'),
      maxSessionsPerCaller: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Like --max-sessions-per-caller.'),
    })
    .strict(),
);

/** An instance name (`--instance`, `server.instance`): it starts session ids, so no dots or spaces. */
export const instanceNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1-32 of A-Z a-z 0-9 _ -');

const serverSchema = once(() =>
  z
    .object({
      transport: z.enum(['stdio', 'http']).optional().describe('stdio (default) or Streamable HTTP.'),
      host: z.string().min(1).optional().describe('Address to bind for HTTP. Default 127.0.0.1.'),
      port: z.number().int().min(0).max(65_535).optional().describe('Port for HTTP; 0 picks a free one.'),
      allowedHosts: z
        .array(z.string().min(1))
        .optional()
        .describe('Host header values accepted besides localhost (DNS-rebinding protection).'),
      allowedOrigins: z
        .array(z.string().min(1))
        .optional()
        .describe('Origin host names browsers may call from.'),
      maxBodyBytes: z.number().int().positive().optional().describe('Largest HTTP request body.'),
      limits: httpLimitsSchema()
        .optional()
        .describe('Limits that keep one HTTP client from exhausting the server; flags win.'),
      logLevel: z.enum(['debug', 'info', 'warning', 'error']).optional(),
      instance: instanceNameSchema
        .optional()
        .describe(
          'This instance\'s name among several behind a load balancer: initialize-era session ids start with "NAME.", so the balancer can route each session back to it. --instance wins.',
        ),
      store: z
        .string()
        .min(1)
        .optional()
        .describe(
          'Share tasks and paged outputs with the other instances behind one endpoint: redis://HOST:PORT/DB, usually BRIDGE_STORE_URL (an environment reference in a config file). Credentials go in BRIDGE_STORE_USERNAME / BRIDGE_STORE_PASSWORD, never here. --store wins.',
        ),
      instructions: z.string().optional().describe('Text telling the client model how to use this server.'),
      confirm: confirmSchema
        .optional()
        .describe("The confirm setting of sources that set none (see a source's confirm); --confirm wins."),
      confirmFallback: confirmFallbackSchema.optional(),
      askMissing: askMissingSchema
        .optional()
        .describe('The askMissing setting of sources that set none; --ask-missing turns it on.'),
      auth: authConfigSchema()
        .optional()
        .describe('Bearer-token protection of the HTTP endpoint; command-line --auth flags win.'),
    })
    .strict(),
);

export type ServerSettings = z.infer<ReturnType<typeof serverSchema>>;
export type ToolOverride = z.infer<ReturnType<typeof toolOverrideSchema>>;

/**
 * The file as first validated, before any adapter is loaded: `options` stays unchecked here and
 * goes to the adapter's `configSchema` afterwards, so a config only loads the adapters it uses.
 */
export function configShellSchema(kinds: readonly string[]) {
  const kind = z.string().refine((value) => kinds.includes(value), {
    message: 'unknown source kind',
    params: { fix: `use one of ${kinds.join(', ')}` },
  });
  return z
    .object({
      $schema: z.string().optional(),
      server: serverSchema().optional(),
      sources: z
        .array(
          z
            .object({
              kind,
              ...commonSourceShape(),
              options: z.record(z.string(), z.unknown()).optional(),
            })
            .strict(),
        )
        .min(1, 'list at least one source'),
    })
    .strict();
}

export type ConfigShell = z.infer<ReturnType<typeof configShellSchema>>;
export type SourceEntry = ConfigShell['sources'][number];

/** The complete schema, every kind's options included: what `bridge config schema` prints. */
export function fullConfigSchema(adapters: readonly AdapterCommand[]) {
  const [first, ...rest] = adapters.map((adapter) =>
    z
      .object({
        kind: z.literal(adapter.name),
        ...commonSourceShape(),
        options: (adapter.configSchema as z.ZodType).describe(
          `Options of the ${adapter.name} adapter (the same as its command-line flags). "\${VAR}" in a string reads the environment variable VAR.`,
        ),
      })
      .strict(),
  );
  if (!first) throw new Error('fullConfigSchema needs at least one adapter');
  return z
    .object({
      $schema: z.string().optional().describe('Path or URL of this JSON Schema, for editors.'),
      server: serverSchema().optional(),
      sources: z
        .array(z.discriminatedUnion('kind', [first, ...rest]))
        .min(1)
        .describe('The sources of tools; tool names across sources are made unique by their namespaces.'),
    })
    .strict();
}

/** The JSON Schema (2020-12) of the config file, for editors. */
export function configJsonSchema(adapters: readonly AdapterCommand[]): Record<string, unknown> {
  const schema = z.toJSONSchema(fullConfigSchema(adapters), { io: 'input', unrepresentable: 'any' });
  return { ...schema, title: 'bridge config file' };
}
