import type { ClientAsk } from './ask/client-ask.js';
import type { ContentBlock } from './tool.js';

/**
 * Prompts and fixed resources a server offers beside its tools: the MCP `prompts/*`,
 * `resources/*` (static resources and URI templates) and `completion/complete` features.
 * Adapters rarely need them; embedders and the conformance fixture do. All optional: a server
 * given none answers these methods with empty lists, as before.
 */

/** What the core hands a prompt, resource or completion callback for one request. */
export interface CatalogContext {
  /** Aborted when the client cancels or the server shuts down. */
  signal: AbortSignal;
  /** Who is calling (see `ToolContext.caller`). */
  caller: string;
  /**
   * Asks the client (`prompts/get` only), as `ToolContext.ask` does for tools: in 2026-07-28 an
   * unanswered question ends this run and the prompt is rendered again with the answer.
   */
  ask?: ClientAsk;
}

/** The contents of one resource: text, or binary as base64 (`blob`). */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/** One argument a prompt accepts. Prompt arguments are always strings. */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  /** A `prompts/get` without it is refused with -32602. */
  required?: boolean;
}

/** One message of a rendered prompt. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

/**
 * A prompt template clients list with `prompts/list` and render with `prompts/get`.
 *
 * @example
 * const greet: PromptDefinition = {
 *   name: 'greet',
 *   arguments: [{ name: 'who', required: true }],
 *   get: ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hi to ${who}` } }] }),
 * };
 */
export interface PromptDefinition {
  /** Unique among the server's prompts. */
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  /** Renders the prompt; `args` holds every required argument (checked by the core). */
  get(
    args: Record<string, string>,
    context: CatalogContext,
  ):
    | Promise<{ description?: string; messages: PromptMessage[] }>
    | { description?: string; messages: PromptMessage[] };
  /**
   * Suggests values for `argument` starting from the partial `value` (`completion/complete`).
   * Without it the server answers with no suggestions.
   */
  complete?(argument: string, value: string, context: CatalogContext): Promise<string[]> | string[];
}

/**
 * A resource with a fixed URI, listed by `resources/list` and read on demand. When its contents
 * change, call `RunningBridge.notifyResourceUpdated(uri)` so that subscribed clients hear of it.
 */
export interface ResourceDefinition {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes, when known. */
  size?: number;
  /** Reads the current contents (usually one entry, with this resource's `uri`). */
  read(context: CatalogContext): Promise<ResourceContents[]> | ResourceContents[];
}

/**
 * A family of resources named by an RFC 6570 URI template (`test://item/{id}`), listed by
 * `resources/templates/list`; `resources/read` of a matching URI calls `read` with the variables.
 */
export interface ResourceTemplateDefinition {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  read(
    uri: string,
    variables: Record<string, string>,
    context: CatalogContext,
  ): Promise<ResourceContents[]> | ResourceContents[];
  /** Suggests values for the template variable `variable` (`completion/complete`). */
  complete?(variable: string, value: string, context: CatalogContext): Promise<string[]> | string[];
}

/** Everything besides tools that a server offers. */
export interface Catalog {
  prompts?: PromptDefinition[];
  resources?: ResourceDefinition[];
  resourceTemplates?: ResourceTemplateDefinition[];
}
