/**
 * The adapter contract: everything an adapter may import. Adapters import from here only; a host
 * program embedding a bridge imports `src/embed.ts` (serve, the stores, their options).
 */

export {
  AskInterrupt,
  type AskKind,
  type ClientAsk,
  ClientCannotAnswerError,
  type ClientRoot,
  type FormAnswer,
  type FormQuestion,
  type SamplingAnswer,
  type SamplingQuestion,
  type UrlAnswer,
  type UrlQuestion,
} from './ask/client-ask.js';
export {
  type BoundedSchema,
  boundSchema,
  cutSchemasWarning,
  listedInputSchema,
  MAX_SCHEMA_ENTRIES,
} from './bound-schema.js';
export { cacheDir, readOwnFile, writeOwnFile } from './cache-dir.js';
export type {
  Catalog,
  CatalogContext,
  PromptArgument,
  PromptDefinition,
  PromptMessage,
  ResourceContents,
  ResourceDefinition,
  ResourceTemplateDefinition,
} from './catalog.js';
export { clipText } from './clip-text.js';
export type { AdapterCommand, FlagValues } from './command.js';
export { annotationsOverrideSchema } from './config/config-schema.js';
export { countOf, mebibytes } from './count-of.js';
export { credentialVariable } from './credential-variable.js';
export { displayUrl } from './display-url.js';
export {
  BridgeError,
  type BridgeErrorCode,
  describeError,
  JSON_RPC_ERROR_CODES,
  toBridgeError,
} from './errors.js';
export { UNSEEN } from './escape-control.js';
export { emptyCredentialWarnings, normalizeHeaders } from './expand-headers.js';
export { booleanFlag, headerFlags, integerFlag, listFlag, stringFlag, withFlags } from './flags.js';
export { htmlPageTitle, isHtmlPage } from './html-page.js';
export { excessiveDepth, MAX_JSON_DEPTH, nestsDeeperThan, refuseDeepSchema } from './json-depth.js';
export { listSome } from './list-some.js';
export { keepListedJson, LISTED_JSON_FORMAT } from './listed-json.js';
export { createStderrLogger, type Logger, type LogLevel, silentLogger } from './logger.js';
export { PAGE_URI_TEMPLATE, type PagedOutput, type PageOutputOptions, pageOutput } from './page-output.js';
export { isPlainObject, setOwn } from './plain-object.js';
export {
  commandStarted,
  commandsRunning,
  commandThatChanged,
  existingProtectedPaths,
  protectedPathOf,
  protectPaths,
} from './protected-paths.js';
export { clip, QUOTED_CHARS, quote } from './quote-input.js';
export { type InputBytes, readInputFile } from './read-input-file.js';
export {
  MAX_AUTH_RESPONSE_BYTES,
  MAX_PARSED_JSON_BYTES,
  MAX_RESPONSE_BYTES,
  readResponseBody,
} from './read-response-body.js';
export { inside, realOrSelf } from './real-path.js';
export { invokeTool, type RegisteredTool, type SourceTools, ToolRegistry } from './registry.js';
export {
  MemoryResourceStore,
  type MemoryResourceStoreOptions,
  type NewResource,
  RESOURCE_URI_PREFIX,
  type ResourceStore,
  type StoredContents,
  type StoredResource,
} from './resource-store.js';
export { definitionName, SCHEMA_KEYS, SCHEMA_LIST_KEYS, SCHEMA_MAP_KEYS } from './schema-members.js';
export { isSchemaPattern } from './schema-pattern.js';
export { isSealed, sealJson } from './sealed-json.js';
export { commandEnvironment } from './secret-variables.js';
export { CALLBACK_PATH, SignInCallbacks } from './sign-in/sign-in-callbacks.js';
export { type SignInSettings, UpstreamSignIn } from './sign-in/upstream-sign-in.js';
export type { LoadContext, Source, ToolPolicy } from './source.js';
export {
  type ContentBlock,
  type JsonSchema,
  type Progress,
  READ_ONLY_LOCAL,
  type TaskSupport,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
  textResult,
} from './tool.js';
export { MAX_TOOL_NAME_LENGTH, sanitizeToolName, uniqueToolNames } from './tool-names.js';
export { isLoopback } from './transports/listen-address.js';
export {
  PROPERTY_DESCRIPTION_BUDGET,
  propertyDescription,
  TITLE_BUDGET,
  TOOL_DESCRIPTION_BUDGET,
  trimText,
} from './trim-text.js';
export { compileValidator, formatViolations, type Violation } from './validate-arguments.js';
