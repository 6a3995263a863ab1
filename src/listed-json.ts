import type { ToolDefinition } from './tool.js';

// A definition's listed members as JSON text the adapter already holds, so that `tools/list` can
// send them without building and serializing objects. The OpenAPI conversion cache keeps each
// tool's members serialized: a repeat start then lists GitHub's 1,223 tools (1.6 MB) without
// parsing them first, and parses a tool's schemas only when it is called.
//
// Kept beside the definition rather than in it: a copy made to change a definition (a config
// override, a namespace, a confirmation wrapper) keeps the text only through `copyDefinition`, and
// only when it changes none of the listed members; any other copy has no text here and is listed
// from its members. A member of the definition object itself would be copied along by a spread
// and list the old title or description.
const texts = new WeakMap<ToolDefinition, Uint8Array>();

/**
 * The shape `keepListedJson` promises, as a number: bumped whenever `listEntry` changes which
 * members it takes from a definition or how. An adapter that stores kept text (the OpenAPI
 * conversion cache) records it beside the text and drops text of another shape.
 */
export const LISTED_JSON_FORMAT = 1;

/**
 * Declares `json` (UTF-8) to be, exactly, the JSON object of `definition`'s listed members as
 * `tools/list` carries them: `title` (when not empty), `description`, `inputSchema`,
 * `outputSchema` (when present, with `"type": "object"` at its root) and `annotations`, and no
 * other member. The text is sent as it is: a mismatch would list what is not called. Returns
 * `definition`.
 */
export function keepListedJson<T extends ToolDefinition>(definition: T, json: Uint8Array): T {
  texts.set(definition, json);
  return definition;
}

/** The text `keepListedJson` declared for this very definition object, if any. */
export function listedJsonOf(definition: ToolDefinition): Uint8Array | undefined {
  return texts.get(definition);
}

/** The members `keepListedJson`'s text holds: a copy that changes one is listed from its members. */
const LISTED_MEMBERS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'];

/**
 * A copy of `definition` with `changes` applied. Members read through accessors stay accessors,
 * not read now: an adapter's lazily parsed definition (the OpenAPI conversion cache) stays lazy.
 * The copy keeps the original's listed text unless `changes` touch a listed member.
 */
export function copyDefinition(definition: ToolDefinition, changes: Partial<ToolDefinition>): ToolDefinition {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(definition)) as ToolDefinition;
  for (const [key, value] of Object.entries(changes)) {
    Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  }
  const text = texts.get(definition);
  if (text && !LISTED_MEMBERS.some((member) => Object.hasOwn(changes, member))) texts.set(copy, text);
  return copy;
}
