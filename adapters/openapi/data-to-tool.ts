import {
  BridgeError,
  compileValidator,
  displayUrl,
  keepListedJson,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from '../../src/index.js';
import type { Applied, Authenticator } from './authenticate.js';
import { type CallTarget, callTarget, isFetched } from './base-url.js';
import { buildRequest, type HttpRequest } from './build-request.js';
import { headerNotes } from './describe-headers.js';
import type { LoadedDocument } from './load-document.js';
import type { OperationPlan } from './plan-operation.js';
import { responseToResult } from './response-to-result.js';
import type { HttpSender } from './send-request.js';

const IDEMPOTENT_METHODS = new Set(['get', 'head', 'options', 'trace', 'put', 'delete']);

/**
 * One converted operation as plain JSON: what the conversion cache stores, and all a tool needs at
 * call time (the parsed spec is not).
 */
export interface ToolData {
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Kept even under --relax-output (which drops it when the tool is built), so the cache is shared. */
  outputSchema?: Record<string, unknown>;
  annotations: ToolAnnotations;
  plan: OperationPlan;
  timeoutMs?: number;
  /**
   * Parts of the input schema described by their type only (see `boundSchema`). Not cached: the
   * warning it makes is, with the conversion's others.
   */
  cut?: number;
}

/** The few top-level fields of a spec that `resolveBaseUrl` reads. */
export type ServerFields = Pick<LoadedDocument, 'version' | 'location'> & {
  document: Record<string, unknown>;
};

/** What every tool of one source shares at call time. */
export interface CallSettings {
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
  /**
   * The spec's `$ref`s are followed to URLs (`--allow-remote-refs`): a document fetched that way
   * may hold a path item or operation with servers of its own, chosen by its author.
   */
  remoteRefs?: boolean;
}

/**
 * The tool of one converted operation: its schemas as converted, its calls through `setup`. `read`
 * is called on the first use of any member, not before: a tool from the conversion cache is listed
 * from its kept JSON (`listed`, see `keepListedJson`) and parsed only when it is called or read.
 */
export function dataToTool(
  name: string,
  read: () => ToolData,
  setup: CallSettings,
  listed?: Uint8Array,
): ToolDefinition {
  let data: ToolData | undefined;
  const get = () => {
    data ??= read();
    return data;
  };
  let checkOutput: ((value: unknown) => string[]) | undefined;
  const outputChecker = () => {
    const outputSchema = definition.outputSchema;
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
    get title() {
      return get().title;
    },
    get description() {
      return get().description;
    },
    get inputSchema() {
      return get().inputSchema;
    },
    get outputSchema() {
      return setup.relaxOutput ? undefined : get().outputSchema;
    },
    get annotations() {
      return get().annotations;
    },
    invoke: (args, context) => {
      const { plan, timeoutMs } = get();
      return callOperation(name, plan, args, context, setup, timeoutMs ?? setup.timeoutMs, outputChecker());
    },
    // The request as it would be sent, for the user to confirm (credentials are added later, unshown).
    preview: (args) => {
      const { plan } = get();
      const request = buildRequest(
        plan,
        args,
        targetOf(plan, setup).url,
        setup.auth.credentialNames(plan.security),
      );
      return `${request.method.toUpperCase()} ${request.origin}${request.path}`;
    },
  };
  // --relax-output lists no output schema: the kept text, which has it, cannot be sent as it is.
  return listed && !setup.relaxOutput ? keepListedJson(definition, listed) : definition;
}

const targets = new WeakMap<object, CallTarget>();

function targetOf(plan: OperationPlan, setup: CallSettings): CallTarget {
  const key = plan.servers ?? setup.servers;
  let target = targets.get(key);
  if (!target) {
    target = callTarget(setup.servers, setup.baseUrl, plan.servers);
    targets.set(key, target);
  }
  return target;
}

async function callOperation(
  name: string,
  plan: OperationPlan,
  args: Record<string, unknown>,
  context: ToolContext,
  setup: CallSettings,
  timeoutMs: number,
  checkOutput: ((value: unknown) => string[]) | undefined,
): Promise<ToolResult> {
  const { url: baseUrl, chosen } = targetOf(plan, setup);
  if (!chosen && (isFetched(setup.servers.location) || setup.remoteRefs)) throw elsewhere(baseUrl, setup);
  const idempotent = IDEMPOTENT_METHODS.has(plan.method);
  let applied: Applied = { missing: [], ungranted: [], refreshable: false };
  let request!: HttpRequest;
  const prepare = async () => {
    request = buildRequest(plan, args, baseUrl, setup.auth.credentialNames(plan.security));
    // The user's headers and credentials go only to the origin they chose (see `callTarget`).
    if (!chosen) return;
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
  const result = await responseToResult(
    request,
    response,
    {
      toolName: name,
      missingCredentials: applied.missing,
      ungrantedSchemes: applied.ungranted,
      ...(chosen ? {} : { withheld: `the operation's server ${baseUrl.origin} is not the API's own origin` }),
      ...(checkOutput ? { checkOutput } : {}),
    },
    context,
  );
  // What the headers say that the result does not carry otherwise: the next page, a new resource.
  if (!result.isError) {
    for (const text of headerNotes(response.headers, request, plan.params, name)) {
      result.content.push({ type: 'text', text });
    }
  }
  return result;
}

// A spec fetched by URL names the servers its author chose, which could be this machine or its
// network (169.254.169.254, a service on localhost): its operations are called on the API's own
// origin only.
function elsewhere(url: URL, setup: CallSettings): BridgeError {
  if (!isFetched(setup.servers.location)) {
    return new BridgeError(
      'invalid_input',
      `the operation's server ${url.origin} is on another origin than the spec's top-level server, and the spec's references are followed to URLs (--allow-remote-refs): a document fetched that way may have chosen this server, which could be this machine or its network. Nothing was sent. To call it, bundle the referenced documents into the spec, or pass --base-url to send every call to one origin.`,
    );
  }
  return new BridgeError(
    'invalid_input',
    `the operation's server ${url.origin} is on another origin than the spec's top-level server, and the operations of a spec fetched by URL (${displayUrl(setup.servers.location)}) are called on that origin only: its author chose this server, which could be this machine or its network. Nothing was sent. To call it, serve a downloaded copy of the spec (its operations on other origins are then called without your credentials), or pass --base-url to send every call to one origin.`,
  );
}
