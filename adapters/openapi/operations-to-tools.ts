import {
  BridgeError,
  describeError,
  type Logger,
  refuseDeepSchema,
  TITLE_BUDGET,
  TOOL_DESCRIPTION_BUDGET,
  type ToolDefinition,
  trimText,
} from '../../src/index.js';
import { SchemaConverter } from './convert-schema.js';
import { type CallSettings, dataToTool, type ServerFields, type ToolData } from './data-to-tool.js';
import { dropBoilerplate, repeatedParameterSentences, repeatedSentences } from './drop-boilerplate.js';
import { inferAnnotations } from './infer-annotations.js';
import { inlineSingleUse } from './inline-defs.js';
import type { OperationInfo } from './list-operations.js';
import type { LoadedDocument } from './load-document.js';
import { nameTools } from './name-tools.js';
import { planOperation } from './plan-operation.js';
import { deref, isObject } from './resolve-ref.js';
import { checkCompiles } from './schema-dialect.js';

export type { CallSettings, ServerFields, ToolData } from './data-to-tool.js';

/** What every tool of one source shares at call time, and the document while converting. */
export interface CallSetup extends CallSettings {
  /** Only read while building the tools; calls keep `servers` instead, so the document can be freed. */
  loaded: LoadedDocument;
}

/** An operation as the tools and the dynamic meta-tools see it, without the spec around it. */
export type OperationSummary = Omit<OperationInfo, 'operation' | 'pathParameters'> & {
  operation: OperationInfo['operation'];
};

/**
 * An operation on its way to becoming a tool: named and annotated at once, converted on the first
 * `definition()` call. Dynamic mode converts only the operations a model describes or calls, so a
 * 1,000-operation spec starts about as fast as it parses.
 */
export interface OperationTool {
  name: string;
  operation: OperationSummary;
  readOnly: boolean;
  /** The converted operation, or why it cannot be converted (converts on the first call). */
  data(): { data: ToolData } | { error: string };
  /** The tool; throws a `BridgeError` saying why when the operation cannot be converted. */
  definition(): ToolDefinition;
}

/**
 * Names every operation; conversion waits for `data()` or `definition()`. The parsed spec is held
 * only while some operation is still unconverted: once the last one is (all at once for
 * `--tools all`, in the background for dynamic mode), nothing here refers to it any more, so a
 * long-running server does not keep the whole document (GitHub's: 13 MB of JSON) alive.
 */
export function operationsToTools(operations: OperationInfo[], setup: CallSetup): OperationTool[] {
  const { loaded, ...calls } = setup;
  let spec: Spec | undefined = {
    converter: new SchemaConverter(loaded.document, loaded.version),
    loaded,
    // Counted over every operation on the first conversion (a few ms for GitHub's 1,223).
    get boilerplate() {
      const sentences = repeatedSentences(operations);
      Object.defineProperty(this, 'boilerplate', { value: sentences });
      return sentences;
    },
    get parameterBoilerplate() {
      // `this.loaded`, not `loaded`: a closure naming `loaded` would keep the spec alive in every tool.
      const descriptions = parameterDescriptions(this.loaded.document);
      const sentences = repeatedParameterSentences(operations, descriptions);
      Object.defineProperty(this, 'parameterBoilerplate', { value: sentences });
      return sentences;
    },
  };
  let unconverted = operations.length;
  const names = nameTools(operations);
  return operations.map((info, index) => {
    const name = names[index] as string;
    let operation: OperationInfo | undefined = info;
    let converted: { data: ToolData } | { error: string } | undefined;
    const summary = summarize(info);
    return operationTool(
      name,
      () => summary,
      inferAnnotations(info).readOnlyHint,
      calls,
      () => {
        if (converted) return converted;
        try {
          if (!spec || !operation)
            throw new Error('the spec was released before this operation was converted');
          converted = { data: convertOperation(name, operation, spec) };
        } catch (error) {
          converted = { error: describeError(error) };
        }
        operation = undefined;
        unconverted--;
        if (unconverted === 0) spec = undefined;
        return converted;
      },
    );
  });
}

/**
 * An operation tool from what `data()` returned before (the conversion cache). `operation` is read
 * only when needed (dynamic mode's search, an error naming the operation): the cache parses it then.
 * `listed` is the cache's JSON of the data's listed members (see `dataToTool`).
 */
export function operationTool(
  name: string,
  operation: () => OperationSummary,
  readOnly: boolean,
  setup: CallSettings,
  data: OperationTool['data'],
  listed?: Uint8Array,
): OperationTool {
  let built: ToolDefinition | undefined;
  return {
    name,
    get operation() {
      return operation();
    },
    readOnly,
    data,
    definition() {
      if (built) return built;
      const converted = data();
      if ('data' in converted) {
        built = dataToTool(name, () => converted.data, setup, listed);
        return built;
      }
      const { method, path } = operation();
      const where = `${method.toUpperCase()} ${path} (${name})`;
      throw new BridgeError('invalid_input', `operation ${where} cannot be served: ${converted.error}`);
    },
  };
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

/** Copies the fields calls need out of the document, so that the parsed spec is not kept alive. */
export function serverFields(loaded: LoadedDocument): ServerFields {
  const { document, version, location } = loaded;
  const keep: Record<string, unknown> = {};
  for (const key of ['servers', 'host', 'basePath', 'schemes']) {
    if (document[key] !== undefined) keep[key] = document[key];
  }
  return { document: keep, version, location };
}

// What the dynamic tools and the cache keep of an operation: its `x-mcp` extension, not the rest.
function summarize(info: OperationInfo): OperationSummary {
  const { operation, pathParameters: _, ...rest } = info;
  return isObject(operation['x-mcp'])
    ? { ...rest, operation: { 'x-mcp': operation['x-mcp'] } }
    : { ...rest, operation: {} };
}

/** What converting an operation reads of the whole spec. */
interface Spec {
  converter: SchemaConverter;
  loaded: LoadedDocument;
  /** The sentences repeated across the spec's operation descriptions (see drop-boilerplate.ts). */
  readonly boilerplate: ReadonlySet<string>;
  /** The same across the operations' parameter descriptions. */
  readonly parameterBoilerplate: ReadonlySet<string>;
}

// An operation's parameter descriptions, path-level ones included. A reference leading nowhere
// gives none (the operation's own conversion says why); each reference is followed once per spec
// (GitHub's ~3,500 parameters are ~200 shared components).
function parameterDescriptions(document: LoadedDocument['document']) {
  const byRef = new Map<string, unknown>();
  const descriptionOf = (raw: unknown): unknown => {
    const ref = isObject(raw) && typeof raw.$ref === 'string' ? raw.$ref : undefined;
    if (ref !== undefined && byRef.has(ref)) return byRef.get(ref);
    let description: unknown;
    try {
      const parameter = deref(document, raw);
      description = isObject(parameter) ? parameter.description : undefined;
    } catch {}
    if (ref !== undefined) byRef.set(ref, description);
    return description;
  };
  return (info: OperationInfo): unknown[] => {
    const own = Array.isArray(info.operation.parameters) ? info.operation.parameters : [];
    return [...info.pathParameters, ...own].map(descriptionOf);
  };
}

function convertOperation(
  name: string,
  operation: OperationInfo,
  { converter, loaded, boilerplate, parameterBoilerplate }: Spec,
): ToolData {
  const planned = planOperation(operation, loaded.document, loaded.version, converter, parameterBoilerplate);
  const extension = isObject(operation.operation['x-mcp']) ? operation.operation['x-mcp'] : {};
  const title =
    typeof extension.title === 'string'
      ? extension.title
      : (operation.summary ?? operation.operationId ?? name);
  const description =
    typeof extension.description === 'string'
      ? extension.description
      : describeOperation(operation, boilerplate, argumentNames(planned.inputSchema));
  const data: ToolData = {
    title: trimText(title, TITLE_BUDGET),
    description,
    inputSchema: inlineSingleUse(planned.inputSchema),
    annotations: inferAnnotations(operation),
    plan: planned.plan,
  };
  if (planned.outputSchema) data.outputSchema = inlineSingleUse(planned.outputSchema);
  // (An output schema is an outline, a few levels deep: see plan-output.ts.)
  refuseDeepSchema(data.inputSchema);
  if (planned.cut) data.cut = planned.cut;
  if (typeof extension.timeoutMs === 'number') data.timeoutMs = extension.timeoutMs;
  // Only specs that declare another JSON Schema dialect pay for compiling up front: a schema that
  // still does not compile makes the operation unservable rather than served unvalidated.
  if (converter.foreignDialects.size > 0) checkCompiles(data.inputSchema, converter.foreignDialects);
  return data;
}

// The tool's arguments and the body's top-level properties: a boilerplate sentence naming one stays.
function argumentNames(inputSchema: Record<string, unknown>): string[] {
  const properties = isObject(inputSchema.properties) ? inputSchema.properties : {};
  const body = properties.body;
  const bodyProperties = isObject(body) && isObject(body.properties) ? Object.keys(body.properties) : [];
  return [...Object.keys(properties), ...bodyProperties];
}

function describeOperation(
  operation: OperationInfo,
  boilerplate: ReadonlySet<string>,
  parameters: readonly string[],
): string {
  const parts: string[] = [];
  if (operation.summary) parts.push(operation.summary);
  const description =
    operation.description && dropBoilerplate(operation.description, boilerplate, parameters);
  if (description && description !== operation.summary) parts.push(description);
  if (parts.length === 0) parts.push(`${operation.method.toUpperCase()} ${operation.path}`);
  const deprecated = operation.deprecated
    ? 'Deprecated: the API may remove this operation; prefer an alternative.'
    : '';
  const budget = TOOL_DESCRIPTION_BUDGET - (deprecated ? deprecated.length + 2 : 0);
  const text = trimText(parts.join('\n\n'), budget) || `${operation.method.toUpperCase()} ${operation.path}`;
  return deprecated ? `${text}\n\n${deprecated}` : text;
}
