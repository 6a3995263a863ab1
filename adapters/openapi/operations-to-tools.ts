import {
  BridgeError,
  compileValidator,
  describeError,
  type Logger,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from '../../src/index.js';
import type { Authenticator } from './authenticate.js';
import { resolveBaseUrl } from './base-url.js';
import { buildRequest, type HttpRequest } from './build-request.js';
import { SchemaConverter } from './convert-schema.js';
import { inferAnnotations } from './infer-annotations.js';
import type { OperationInfo } from './list-operations.js';
import type { LoadedDocument } from './load-document.js';
import { nameTools } from './name-tools.js';
import { type OperationPlan, planOperation } from './plan-operation.js';
import { isObject } from './resolve-ref.js';
import { responseToResult } from './response-to-result.js';
import { checkCompiles } from './schema-dialect.js';
import type { HttpSender } from './send-request.js';
import { trimText } from './trim-text.js';

/** Longest tool description: summary, description and notes together. */
const DESCRIPTION_BUDGET = 1_200;
const IDEMPOTENT_METHODS = new Set(['get', 'head', 'options', 'trace', 'put', 'delete']);

/** What every tool of one source shares at call time. */
export interface CallSetup {
  /** Only read while building the tools; calls keep `servers` instead, so the document can be freed. */
  loaded: LoadedDocument;
  /** The document's top-level fields that say where to send calls. */
  servers: ServerFields;
  sender: HttpSender;
  auth: Authenticator;
  baseUrl?: string;
  headers: Record<string, string>;
  timeoutMs: number;
  retries: number;
  relaxOutput: boolean;
  forwardAuth: boolean;
}

/**
 * An operation on its way to becoming a tool: named and annotated at once, converted on the first
 * `definition()` call. Dynamic mode converts only the operations a model describes or calls, so a
 * 1,000-operation spec starts about as fast as it parses.
 */
export interface OperationTool {
  name: string;
  operation: OperationInfo;
  readOnly: boolean;
  /** The tool; throws a `BridgeError` saying why when the operation cannot be converted. */
  definition(): ToolDefinition;
}

/** Names every operation; conversion waits for `definition()`. */
export function operationsToTools(operations: OperationInfo[], setup: CallSetup): OperationTool[] {
  const { loaded, ...calls } = setup;
  const converter = new SchemaConverter(loaded.document, loaded.version);
  const names = nameTools(operations);
  return operations.map((operation, index) => {
    const name = names[index] as string;
    let built: ToolDefinition | undefined;
    let failure: unknown;
    return {
      name,
      operation,
      readOnly: inferAnnotations(operation).readOnlyHint,
      definition() {
        if (built) return built;
        if (failure === undefined) {
          try {
            const tool = toTool(name, operation, converter, loaded, calls);
            // Only specs that declare another JSON Schema dialect pay for compiling up front.
            if (converter.foreignDialects.size > 0)
              checkCompiles(tool.inputSchema, converter.foreignDialects);
            built = tool;
            return built;
          } catch (error) {
            failure = error;
          }
        }
        const where = `${operation.method.toUpperCase()} ${operation.path} (${name})`;
        throw new BridgeError(
          'invalid_input',
          `operation ${where} cannot be served: ${describeError(failure)}`,
          {
            cause: failure,
          },
        );
      },
    };
  });
}

/** Every tool, converted now; an operation that cannot be converted is skipped with a warning naming it. */
export function buildAll(tools: OperationTool[], log: Logger): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  for (const tool of tools) {
    try {
      definitions.push(tool.definition());
    } catch (error) {
      log.warn(`skipped ${describeError(error)}`);
    }
  }
  return definitions;
}

/** The few top-level fields of a spec that `resolveBaseUrl` reads. */
export type ServerFields = Pick<LoadedDocument, 'version' | 'location'> & {
  document: Record<string, unknown>;
};

/** Copies the fields calls need out of the document, so that the parsed spec is not kept alive. */
export function serverFields(loaded: LoadedDocument): ServerFields {
  const { document, version, location } = loaded;
  const keep: Record<string, unknown> = {};
  for (const key of ['servers', 'host', 'basePath', 'schemes']) {
    if (document[key] !== undefined) keep[key] = document[key];
  }
  return { document: keep, version, location };
}

// `setup` is what calls keep: it holds no reference to the parsed document.
function toTool(
  name: string,
  operation: OperationInfo,
  converter: SchemaConverter,
  loaded: LoadedDocument,
  setup: Omit<CallSetup, 'loaded'>,
): ToolDefinition {
  const planned = planOperation(operation, loaded.document, loaded.version, converter);
  const extension = isObject(operation.operation['x-mcp']) ? operation.operation['x-mcp'] : {};
  const annotations = inferAnnotations(operation);
  const outputSchema = setup.relaxOutput ? undefined : planned.outputSchema;
  const timeoutMs = typeof extension.timeoutMs === 'number' ? extension.timeoutMs : setup.timeoutMs;
  const title =
    typeof extension.title === 'string'
      ? extension.title
      : (operation.summary ?? operation.operationId ?? name);
  const description =
    typeof extension.description === 'string' ? extension.description : describeOperation(operation);

  let checkOutput: ((value: unknown) => string[]) | undefined;
  const outputChecker = () => {
    if (checkOutput || !outputSchema) return checkOutput;
    try {
      const validate = compileValidator(outputSchema);
      checkOutput = (value) => validate(value).map((v) => `${v.path || '(body)'} ${v.message}`);
    } catch {
      checkOutput = () => [];
    }
    return checkOutput;
  };

  const definition: ToolDefinition = {
    name,
    title: trimText(title, 120),
    description,
    inputSchema: planned.inputSchema,
    annotations,
    invoke: (args, context) =>
      callOperation(name, planned.plan, args, context, setup, timeoutMs, outputChecker()),
    // The request as it would be sent, for the user to confirm (credentials are added later, unshown).
    preview: (args) => {
      const request = buildRequest(planned.plan, args, baseUrlOf(planned.plan, setup));
      return `${request.method.toUpperCase()} ${request.origin}${request.path}`;
    },
  };
  if (outputSchema) definition.outputSchema = outputSchema;
  return definition;
}

function describeOperation(operation: OperationInfo): string {
  const parts: string[] = [];
  if (operation.summary) parts.push(operation.summary);
  if (operation.description && operation.description !== operation.summary) parts.push(operation.description);
  if (parts.length === 0) parts.push(`${operation.method.toUpperCase()} ${operation.path}`);
  const deprecated = operation.deprecated
    ? 'Deprecated: the API may remove this operation; prefer an alternative.'
    : '';
  const budget = DESCRIPTION_BUDGET - (deprecated ? deprecated.length + 2 : 0);
  const text = trimText(parts.join('\n\n'), budget);
  return deprecated ? `${text}\n\n${deprecated}` : text;
}

const baseUrls = new WeakMap<object, URL>();

function baseUrlOf(plan: OperationPlan, setup: Omit<CallSetup, 'loaded'>): URL {
  const key = plan.servers ?? setup.servers;
  let baseUrl = baseUrls.get(key);
  if (!baseUrl) {
    const { document, version, location } = setup.servers;
    baseUrl = resolveBaseUrl(document, version, location, setup.baseUrl, plan.servers);
    baseUrls.set(key, baseUrl);
  }
  return baseUrl;
}

async function callOperation(
  name: string,
  plan: OperationPlan,
  args: Record<string, unknown>,
  context: ToolContext,
  setup: Omit<CallSetup, 'loaded'>,
  timeoutMs: number,
  checkOutput: ((value: unknown) => string[]) | undefined,
): Promise<ToolResult> {
  const baseUrl = baseUrlOf(plan, setup);
  const idempotent = IDEMPOTENT_METHODS.has(plan.method);
  let applied = { missing: [] as string[], refreshable: false };
  let request!: HttpRequest;
  const prepare = async () => {
    request = buildRequest(plan, args, baseUrl);
    Object.assign(request.headers, setup.headers);
    applied = await setup.auth.apply(plan.security, request, context);
    // The MCP client's own credentials go upstream only when the user asked for it.
    if (setup.forwardAuth && context.authorization) request.headers.authorization = context.authorization;
  };
  await prepare();
  const options = { timeoutMs, retries: setup.retries, idempotent, signal: context.signal };
  let response = await setup.sender.send(request, options);
  if (response.status === 401 && applied.refreshable) {
    // A cached OAuth2 token may have been revoked early: fetch a fresh one and try once more.
    setup.auth.invalidateTokens(context.caller, request.headers.authorization);
    await prepare();
    response = await setup.sender.send(request, options);
  }
  return responseToResult(
    request,
    response,
    {
      toolName: name,
      missingCredentials: applied.missing,
      ...(checkOutput ? { checkOutput } : {}),
    },
    context,
  );
}
