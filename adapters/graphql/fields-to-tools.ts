import {
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isLeafType,
  type SelectionSetNode,
} from 'graphql';
import {
  clip,
  cutSchemasWarning,
  type JsonSchema,
  type Logger,
  PROPERTY_DESCRIPTION_BUDGET,
  quote,
  TOOL_DESCRIPTION_BUDGET,
  type ToolDefinition,
  trimText,
} from '../../src/index.js';
import { boundedName, MAX_NAME_LENGTH } from './bounded-name.js';
import {
  type BoundedSelection,
  buildBoundedSelection,
  connectionShape,
  MAX_SELECTION_BYTES,
  type SelectionBudget,
} from './build-selection.js';
import {
  type CheckedOperation,
  checkOperation,
  documentText,
  isProblems,
  listedProblems,
  type OperationProblems,
} from './check-operation.js';
import { fieldDocument, parseSelectionSet, refuseOtherRootFields } from './field-document.js';
import { inferAnnotations } from './infer-annotations.js';
import { runOperation } from './response-to-result.js';
import type { Endpoint } from './send-request.js';
import type { InputSchemaBuilder } from './variables-to-json-schema.js';

/** What every tool factory of the adapter shares. */
export interface ToolFactoryContext {
  schema: GraphQLSchema;
  endpoint: Endpoint;
  budget: SelectionBudget;
  inputs: InputSchemaBuilder;
  log: Logger;
}

type AnyField = GraphQLField<unknown, unknown>;

/**
 * The most root fields (queries and mutations together) made into tools. Real schemas have a few
 * hundred (GitHub's ~200 queries and ~300 mutations; a generated one over a large database a few
 * thousand); each tool holds ~5 kB, and a schema from an endpoint can name hundreds of thousands of
 * fields in its 64 MiB of introspection: the start would run out of memory instead of serving.
 */
export const MAX_FIELD_TOOLS = 10_000;

/**
 * One tool per field of the Query or Mutation root, `limit` at most (see `MAX_FIELD_TOOLS`). The tool's arguments are the field's arguments
 * (JSON Schema), plus `select`: a selection set replacing the generated one. Documents are built
 * per call with variables for the arguments given, so omitted arguments keep their server defaults.
 */
export function fieldsToTools(
  context: ToolFactoryContext,
  kind: 'query' | 'mutation',
  limit: number = MAX_FIELD_TOOLS,
): ToolDefinition[] {
  const root = kind === 'query' ? context.schema.getQueryType() : context.schema.getMutationType();
  if (!root) return [];
  // In every tool's title: said once rather than once per field.
  try {
    boundedName(root.name, `${kind} root`);
  } catch (error) {
    context.log.warn(`${(error as Error).message}: its fields are skipped`);
    return [];
  }
  const tools: ToolDefinition[] = [];
  const fields = Object.values(root.getFields()).filter((field) => !field.name.startsWith('__'));
  if (fields.length > limit) {
    context.log.warn(
      `the bridge makes at most ${MAX_FIELD_TOOLS.toLocaleString('en-US')} root fields into tools, queries and mutations together: of the ${kind} root's ${fields.length.toLocaleString('en-US')} ${fields.length === 1 ? 'field' : 'fields'}, the first ${limit.toLocaleString('en-US')} are served; write the operations you need with --operations DIR, or reach the rest with --generic`,
    );
  }
  const cut: string[] = [];
  for (const field of fields.slice(0, limit)) {
    try {
      tools.push(fieldToTool(context, kind, root, field, cut));
    } catch (error) {
      context.log.warn(`${kind} field ${clip(field.name)} skipped: ${(error as Error).message}`);
    }
  }
  const warning = cutSchemasWarning(`${kind} field`, cut);
  if (warning) context.log.warn(warning);
  return tools;
}

function fieldToTool(
  context: ToolFactoryContext,
  kind: 'query' | 'mutation',
  root: GraphQLObjectType,
  field: AnyField,
  cut: string[],
): ToolDefinition {
  // Each name the tool's entry carries, checked before any is used: see `boundedName`.
  boundedName(field.name, 'field');
  const returned = getNamedType(field.type);
  boundedName(returned.name, 'type');
  const leaf = isLeafType(returned);
  const selectName = field.args.some((arg) => arg.name === 'select') ? '_select' : 'select';
  const extra: Record<string, JsonSchema> = leaf
    ? {}
    : {
        [selectName]: {
          type: 'string',
          description: `GraphQL selection set on ${returned.name}, e.g. "{ ${exampleField(returned)} }". Default: ids, scalars and objects ${context.budget.depth} level(s) deep.`,
        },
      };
  const bounded = context.inputs.objectSchema(field.args, extra);
  const inputSchema = bounded.schema;
  if (bounded.cut > 0) cut.push(field.name);
  const defaultsFirst =
    !leaf && Boolean(connectionShape(returned)) && field.args.some((arg) => arg.name === 'first');
  let defaultSelection: BoundedSelection | undefined;
  let defaultParsed: SelectionSetNode | undefined;

  const notes = [
    field.deprecationReason
      ? `Deprecated: ${trimText(field.deprecationReason, PROPERTY_DESCRIPTION_BUDGET)}.`
      : '',
    `Returns ${String(field.type)}.`,
    defaultsFirst
      ? 'Paginated: pass `after` = pageInfo.endCursor for the next page (`first` defaults to 10).'
      : '',
  ]
    .filter(Boolean)
    .join(' ');
  // The schema's words within the budget of an OpenAPI tool's, less the notes a call needs: a
  // schema can describe a field in megabytes, and every tools/list would carry them.
  const budget = Math.max(TOOL_DESCRIPTION_BUDGET - notes.length - 1, PROPERTY_DESCRIPTION_BUDGET);
  const own = trimText(field.description ?? '', budget) || `The ${field.name} ${kind} field.`;
  const description = `${own} ${notes}`;

  return {
    name: field.name,
    title: `${root.name}.${field.name}`,
    description,
    inputSchema,
    annotations: inferAnnotations(kind, [field.name]),
    async invoke(args, toolContext) {
      const { [selectName]: select, ...variables } = args;
      if (!leaf && defaultsFirst && variables.first === undefined && variables.last === undefined)
        variables.first = 10;
      const given = typeof select === 'string' && select.trim() !== '' ? select : undefined;
      let selection: SelectionSetNode | undefined;
      let dropped: string[] = [];
      let checked: CheckedOperation | OperationProblems | undefined;
      if (!leaf && given !== undefined) {
        try {
          selection = parseSelectionSet(given);
        } catch (error) {
          checked = { problems: listedProblems([(error as Error).message]) };
        }
      } else if (!leaf) {
        defaultSelection ??= buildBoundedSelection(context.schema, returned, context.budget);
        defaultParsed ??= parseSelectionSet(defaultSelection.selection || '{ __typename }');
        selection = defaultParsed;
        dropped = defaultSelection.dropped;
      }
      // Built as a tree, the document has one operation selecting this field alone; checked all the
      // same, since anything else that reached the server would run unseen by confirmations.
      checked ??= checkOperation(
        context.schema,
        fieldDocument(kind, field, Object.keys(variables), selection),
        variables,
        field.name,
        (operation) => refuseOtherRootFields(operation, field.name),
      );
      if (isProblems(checked)) {
        const what =
          given !== undefined ? `the ${selectName} ${quote(given)} or the arguments` : 'the arguments';
        return {
          content: [
            {
              type: 'text',
              text: `${field.name}: GraphQL rejected ${what}:\n${checked.problems.map((p) => `- ${p}`).join('\n')}`,
            },
          ],
          isError: true,
        };
      }
      const result = await runOperation(
        context.endpoint,
        { query: documentText(checked.document), variables, operationName: field.name },
        toolContext,
        field.name,
      );
      if (dropped.length === 0) return result;
      return {
        ...result,
        content: [
          ...result.content,
          { type: 'text', text: droppedNote(dropped, selectName, context.budget) },
        ],
      };
    },
  };
}

// Said with every result built from a cut selection, so the model knows what it did not get.
function droppedNote(dropped: readonly string[], selectName: string, budget: SelectionBudget): string {
  const shown = dropped
    .slice(0, 10)
    .map((name) => clip(name))
    .join(', ');
  const more = dropped.length > 10 ? ` and ${dropped.length - 10} more` : '';
  return `Note: the default selection was cut at ${budget.maxBytes ?? MAX_SELECTION_BYTES} bytes; left out: ${shown}${more}. Pass "${selectName}" to read those fields.`;
}

// Found once per type: up to 10,000 root fields may return one type of thousands of fields.
const examples = new WeakMap<GraphQLNamedType, string>();

function exampleField(type: GraphQLNamedType): string {
  let example = examples.get(type);
  if (example === undefined) {
    example = findExampleField(type);
    examples.set(type, example);
  }
  return example;
}

function findExampleField(type: GraphQLNamedType): string {
  if (!('getFields' in type)) return '__typename';
  // Any field can be the example: one of those too long to show is not.
  const fields = Object.values(type.getFields()).filter((field) => field.name.length <= MAX_NAME_LENGTH);
  const named = fields.find((field) => ['id', 'name', 'title'].includes(field.name));
  if (named) return named.name;
  const leaf = fields.find((field) => isLeafType(getNamedType(field.type)) && field.args.length === 0);
  if (leaf) return leaf.name;
  const object = fields.find((field) => field.args.length === 0);
  return object ? `${object.name} { __typename }` : '__typename';
}
