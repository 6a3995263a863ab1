import type { JsonSchema, ToolDefinition } from '../tool.js';
import type { Violation } from '../validate-arguments.js';
import type { ClientAsk, FormAnswer } from './client-ask.js';

const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);
// What the restricted elicitation schema may carry of an argument's schema.
const KEPT = [
  'type',
  'title',
  'description',
  'enum',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'format',
  'default',
];

/**
 * Asks the user for required arguments the model left out (`askMissing`), when every violation is
 * such a missing top-level argument and each has a primitive schema a form can show. Returns the
 * completed arguments, a refusal text when the user declines, or `undefined` to report the
 * violations as usual.
 */
export async function askMissingArguments(
  tool: ToolDefinition,
  toolName: string,
  args: Record<string, unknown>,
  violations: readonly Violation[],
  ask: ClientAsk,
): Promise<{ args: Record<string, unknown> } | { refused: string } | undefined> {
  // A tool that runs another by name (dynamic mode's call_operation) never asks: an answer could
  // name the tool it runs, after the scopes of the one the request named were checked.
  if (tool.runs) return undefined;
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const fields: Record<string, JsonSchema> = {};
  for (const violation of violations) {
    const name = violation.path.slice(1);
    if (violation.message !== 'is required' || name.includes('/')) return undefined;
    const field = formField(properties[name]);
    if (!field) return undefined;
    fields[name] = field;
  }
  const names = Object.keys(fields);
  if (names.length === 0 || !ask.can('form')) return undefined;
  const answer: FormAnswer = await ask.elicit({
    key: 'bridge_missing_arguments',
    message: `The tool "${toolName}" needs ${names.join(', ')}, which the request left out. Please provide ${names.length === 1 ? 'it' : 'them'}.`,
    requestedSchema: { type: 'object', properties: fields, required: names },
  });
  if (answer.action !== 'accept') {
    return {
      refused: `The user ${answer.action === 'decline' ? 'declined' : 'cancelled'} to provide ${names.join(', ')} for ${toolName}; nothing was run.`,
    };
  }
  const completed = { ...args };
  for (const name of names) completed[name] = answer.content[name];
  return { args: completed };
}

function formField(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema || typeof schema.type !== 'string' || !PRIMITIVES.has(schema.type)) return undefined;
  if (schema.enum !== undefined && (schema.type !== 'string' || !Array.isArray(schema.enum)))
    return undefined;
  const field: JsonSchema = {};
  for (const key of KEPT) if (schema[key] !== undefined) field[key] = schema[key];
  return field;
}
