import type { ToolDefinition } from './tool.js';

// A definition's listed members as JSON text the adapter already holds, so that `tools/list` can
// send them without building and serializing objects. The OpenAPI conversion cache keeps each
// tool's members serialized: a repeat start then lists GitHub's 1,223 tools (1.6 MB) without
// parsing them first, and parses a tool's schemas only when it is called.
//
// Kept beside the definition rather than in it: whatever copies a definition to change it (a
// config override, a namespace, a confirmation wrapper) makes a new object, which has no text
// here, and is listed from its members. A member of the definition object itself would be copied
// along and list the old title or description.
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
