import {
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  Kind,
  type NameNode,
  type OperationDefinitionNode,
  OperationTypeNode,
  parse,
  parseType,
  type SelectionSetNode,
  type VariableDefinitionNode,
  type VariableNode,
} from 'graphql';
import { documentBounds } from './document-bounds.js';

type AnyField = GraphQLField<unknown, unknown>;

/**
 * Parses a root-field tool's `select` (or a generated selection) as one selection set and nothing
 * else: `"{ id name }"`, or `"id name"` with the braces left out. Text after the closing brace
 * (`"{ id } deleteRepo(name: \"x\")"`, a second operation, a fragment) is a syntax error or a second
 * definition, refused here with a message saying why, so that a tool only ever runs its own field.
 * Throws graphql-js's `GraphQLError` (a syntax error) or an `Error` naming the problem.
 */
export function parseSelectionSet(text: string): SelectionSetNode {
  const trimmed = text.trim();
  const braced = trimmed.startsWith('{') ? trimmed : `{ ${trimmed} }`;
  const unbounded = documentBounds(braced);
  if (unbounded) throw new Error(unbounded.replace('the document', 'the selection'));
  // Starting with `{`, the first definition can only be a shorthand query: the selection set itself.
  const document = parse(braced, { noLocation: true });
  const [only, ...more] = document.definitions;
  if (!only || more.length > 0 || only.kind !== Kind.OPERATION_DEFINITION) {
    throw new Error('it must be one selection set ("{ id name }"), with nothing after its closing brace');
  }
  return only.selectionSet;
}

/**
 * The document of one root-field tool, built as a syntax tree rather than text, with a variable
 * for each argument given: `query repository($owner: String!, $name: String!) { repository(owner:
 * $owner, name: $name) { … } }`. Its operation selects exactly `field`, whatever `selection` holds.
 */
export function fieldDocument(
  kind: 'query' | 'mutation',
  field: AnyField,
  given: readonly string[],
  selection: SelectionSetNode | undefined,
): DocumentNode {
  const args = field.args.filter((arg) => given.includes(arg.name));
  const root: FieldNode = {
    kind: Kind.FIELD,
    name: name(field.name),
    arguments: args.map(
      (arg): ArgumentNode => ({ kind: Kind.ARGUMENT, name: name(arg.name), value: variable(arg.name) }),
    ),
    ...(selection ? { selectionSet: selection } : {}),
  };
  const operation: OperationDefinitionNode = {
    kind: Kind.OPERATION_DEFINITION,
    operation: kind === 'query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION,
    name: name(field.name),
    variableDefinitions: args.map(
      (arg): VariableDefinitionNode => ({
        kind: Kind.VARIABLE_DEFINITION,
        variable: variable(arg.name),
        type: parseType(String(arg.type), { noLocation: true }),
      }),
    ),
    selectionSet: { kind: Kind.SELECTION_SET, selections: [root] },
  };
  return { kind: Kind.DOCUMENT, definitions: [operation] };
}

/**
 * Why `operation` is not exactly one `fieldName` root field without an alias, or `undefined` when
 * it is: the last check before a root-field tool sends anything.
 */
export function refuseOtherRootFields(
  operation: OperationDefinitionNode,
  fieldName: string,
): string | undefined {
  const selections = operation.selectionSet.selections;
  const [only] = selections;
  if (selections.length === 1 && only?.kind === Kind.FIELD && !only.alias && only.name.value === fieldName)
    return undefined;
  return `the operation must select the ${fieldName} field alone`;
}

function name(value: string): NameNode {
  return { kind: Kind.NAME, value };
}

function variable(value: string): VariableNode {
  return { kind: Kind.VARIABLE, name: name(value) };
}
