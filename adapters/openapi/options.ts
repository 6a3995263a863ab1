import { z } from 'zod';
import { annotationsOverrideSchema, BridgeError, type FlagValues } from '../../src/index.js';

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
    timeoutMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Upstream time limit per call (default 30000).'),
    retries: z
      .number()
      .int()
      .min(0)
      .max(10)
      .optional()
      .describe('Retries of idempotent calls on 429/502/503/504 and connection errors (default 2).'),
    relaxOutput: z.boolean().optional().describe('Declare no outputSchema and never check responses.'),
    forwardAuth: z.boolean().optional().describe("Pass the MCP client's Authorization header upstream."),
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
  tools: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  retries: { type: 'string' },
  'relax-output': { type: 'boolean' },
  'forward-auth': { type: 'boolean' },
  'no-cache': { type: 'boolean' },
} as const;

/** `bridge openapi SPEC [flags]` → options; throws `invalid_input` naming the bad flag. */
export function parseFlags(positionals: string[], values: FlagValues): OpenApiOptions {
  if (positionals.length !== 1) {
    throw new BridgeError(
      'invalid_input',
      positionals.length === 0
        ? 'bridge openapi needs the spec: a file path or URL (JSON or YAML)'
        : `bridge openapi takes one spec, got ${positionals.length}: ${positionals.join(' ')}`,
    );
  }
  const options: OpenApiOptions = { spec: positionals[0] as string };
  const baseUrl = values['base-url'];
  if (typeof baseUrl === 'string') {
    try {
      new URL(baseUrl);
    } catch {
      throw new BridgeError('invalid_input', `--base-url expects an absolute URL, got "${baseUrl}"`);
    }
    options.baseUrl = baseUrl;
  }
  const headers = strings(values.header);
  if (headers.length > 0) {
    options.headers = {};
    for (const header of headers) {
      const colon = header.indexOf(':');
      const name = colon > 0 ? header.slice(0, colon).trim() : '';
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
        throw new BridgeError('invalid_input', `--header expects 'Name: value', got "${header}"`);
      }
      options.headers[name] = header.slice(colon + 1).trim();
    }
  }
  if (values.validate === true) options.validate = true;
  if (values['allow-remote-refs'] === true) options.allowRemoteRefs = true;
  const tools = values.tools;
  if (tools !== undefined) {
    if (tools !== 'all' && tools !== 'dynamic' && tools !== 'auto') {
      throw new BridgeError('invalid_input', `--tools expects all, dynamic or auto, got "${String(tools)}"`);
    }
    options.tools = tools;
  }
  const include = strings(values.include);
  if (include.length > 0) options.include = include;
  const exclude = strings(values.exclude);
  if (exclude.length > 0) options.exclude = exclude;
  const timeout = integer(values.timeout, '--timeout', 1);
  if (timeout !== undefined) options.timeoutMs = timeout;
  const retries = integer(values.retries, '--retries', 0);
  if (retries !== undefined) options.retries = retries;
  if (values['relax-output'] === true) options.relaxOutput = true;
  if (values['forward-auth'] === true) options.forwardAuth = true;
  if (values['no-cache'] === true) options.cache = false;
  return options;
}

function strings(value: FlagValues[string]): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

function integer(value: FlagValues[string], flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < min) {
    throw new BridgeError('invalid_input', `${flag} expects an integer ≥ ${min}, got "${String(value)}"`);
  }
  return number;
}
