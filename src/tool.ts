import type { ClientAsk } from './ask/client-ask.js';
import type { Logger } from './logger.js';
import type { ResourceStore } from './resource-store.js';
import type { SignInCallbacks } from './sign-in/sign-in-callbacks.js';

/** A JSON Schema (2020-12 dialect) kept exactly as written: the bridge never rewrites it. */
export type JsonSchema = { [key: string]: unknown };

/**
 * The four MCP tool annotations. The bridge always emits all four, because clients assume the most
 * cautious default for a missing one (destructive, open-world) and ask the user about every call.
 */
export interface ToolAnnotations {
  /** The tool only reads: clients may run it without asking. */
  readOnlyHint: boolean;
  /** The tool may delete or overwrite data (meaningful only when not read-only). */
  destructiveHint: boolean;
  /** Calling it twice with the same arguments has the effect of calling it once. */
  idempotentHint: boolean;
  /** The tool reaches outside the machine: a network API, a remote repository. */
  openWorldHint: boolean;
}

/**
 * Whether a tool may run as an MCP task (long-running, polled by the client):
 * `forbidden` never, `optional` when the client asks, `required` only as a task.
 */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** A content block of a tool result, as MCP defines it (the subset the bridge produces). */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | {
      type: 'resource_link';
      uri: string;
      name: string;
      title?: string;
      description?: string;
      mimeType?: string;
      size?: number;
    }
  | {
      type: 'resource';
      resource:
        | { uri: string; mimeType?: string; text: string }
        | { uri: string; mimeType?: string; blob: string };
    };

/**
 * What a tool returns. Failures the model can act on (an upstream 404, a non-zero exit, bad
 * arguments) are results with `isError: true`, never thrown errors.
 */
export interface ToolResult {
  content: ContentBlock[];
  /** Machine-readable result; matches `outputSchema` when the tool declares one. */
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A progress update. `progress` must increase from one report to the next. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * What the core hands a tool for one call.
 */
export interface ToolContext {
  /** Aborted when the client cancels, the call times out, or the server shuts down: stop the work. */
  signal: AbortSignal;
  /** Reports progress to the client when it asked for it (a no-op otherwise). Values must increase. */
  progress(update: Progress): void;
  /** Logs to stderr and, when the client enabled MCP logging, to the client. */
  log: Logger;
  /**
   * Where large outputs go, to be linked from the result and read page by page. What is put here
   * counts against the call's quota key (an anonymous HTTP client's peer address, see `quotaKeyOf`)
   * unless the put names another.
   */
  resources: ResourceStore;
  /**
   * Who is calling: the HTTP session, the authenticated subject, or `stdio`. Used to keep one
   * caller's resources and tasks away from another's.
   */
  caller: string;
  /**
   * Whose quotas the call counts against when that is not `caller` alone (an anonymous HTTP
   * client's peer address, shared by all its sessions): what a tool holds per caller while it
   * waits (a sign-in) is bounded per key.
   */
  quotaKey?: string;
  /**
   * The `Authorization` header of the HTTP request that carried this call (HTTP transport only).
   * Adapters must not forward it upstream unless the user opted in (e.g. `--forward-auth`).
   */
  authorization?: string;
  /**
   * The client's MCP roots as absolute directories, when the client offers them (the `roots`
   * capability, in either era); `undefined` otherwise, never an empty list. Tools that take paths
   * confine them to these as well as to the roots the user configured. Read from the client once
   * a call: every call of this function in one tool call gives the same answer, so that what a
   * confirmation showed is where the call runs. Rejects, saying why, when the client offers roots
   * but none can be used (`roots/list` failed, or no entry is a local `file:` URL): the tool must
   * then not run, rather than run unconfined.
   */
  roots?(): Promise<string[] | undefined>;
  /**
   * Asks the client: the user (form or URL elicitation), its model (sampling), its roots. Present
   * for calls that can reach the client; read `ClientAsk` before using it — in the 2026-07-28 era a
   * question ends the run and the tool runs again from the start with the answer, so ask before
   * doing anything that must not happen twice.
   */
  ask?: ClientAsk;
  /**
   * Where OAuth redirects of upstream sign-ins arrive (the bridge's `/oauth/callback`, or a
   * loopback listener on stdio). Adapters use it through `UpstreamSignIn`, not directly.
   */
  signIn?: SignInCallbacks;
}

/**
 * One tool, as an adapter defines it. The core adds nothing to it but a unique name.
 */
export interface ToolDefinition {
  /**
   * The name the adapter wants; `[A-Za-z0-9_.-]`, at most 64 characters. The registry makes it
   * valid and unique if it is not (with deterministic suffixes), so adapters may pass raw names.
   */
  name: string;
  /**
   * The name was chosen by the user (a config's `name` override): it keeps it in a clash with a
   * name an adapter chose, which is suffixed instead.
   */
  nameChosen?: boolean;
  /** A short human title for UIs. */
  title?: string;
  /** What the tool does, written for the model. */
  description: string;
  /** JSON Schema 2020-12 for the arguments; `type: "object"` at the root. Sent to clients unchanged. */
  inputSchema: JsonSchema;
  /** JSON Schema 2020-12 of `structuredContent`, when the tool returns structured results. */
  outputSchema?: JsonSchema;
  /** All four hints, always explicit. */
  annotations: ToolAnnotations;
  /** Whether the tool may or must run as a task. Defaults to `forbidden`. */
  taskSupport?: TaskSupport;
  /**
   * When required arguments are missing, ask the user for them (form elicitation) instead of
   * failing, if the client can ask and each is a plain string, number, integer or boolean.
   */
  askMissing?: boolean;
  /**
   * Runs the tool. `args` have already been validated against `inputSchema`. Throwing is allowed:
   * the core turns any throw into an `isError` result carrying the message.
   */
  invoke(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
  /**
   * The exact action a call would take, for the user to confirm before it runs (see the `confirm`
   * setting): the command line of a process, the method and URL of a request. Must have no side
   * effects; may throw for arguments the tool would refuse anyway.
   */
  preview?(args: Record<string, unknown>, context: ToolContext): string | Promise<string>;
  /**
   * For a tool that runs other tools by name (OpenAPI dynamic mode's `call_operation`): the tool
   * a call with `args` runs, as the config serves it (see `LoadContext.policy`), or `undefined`
   * when the arguments name none. What the config sets per tool then applies to that tool: the
   * core asks no confirmation for this one (the tool it runs asks as configured), and over
   * protected HTTP a call needs the scopes of both. Cheap and without side effects: it runs before
   * the call.
   */
  runs?(args: Record<string, unknown>): ToolDefinition | undefined;
}

/** A text-only result. */
export function textResult(text: string, isError = false): ToolResult {
  return isError
    ? { content: [{ type: 'text', text }], isError: true }
    : { content: [{ type: 'text', text }] };
}

/** Annotations of a tool that only reads local state. */
export const READ_ONLY_LOCAL: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});
