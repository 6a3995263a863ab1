import {
  type DocumentNode,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  type OperationDefinitionNode,
  parse,
  print,
  separateOperations,
  stripIgnoredCharacters,
  validate,
} from 'graphql';
import { clip, listSome, quote } from '../../src/index.js';
import { documentBounds } from './document-bounds.js';

/** A document that parsed and validated, with the operation that will run. */
export interface CheckedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
}

/** Why a document or its variables were refused: GraphQL's own messages (see `listedProblems`). */
export interface OperationProblems {
  problems: string[];
}

/**
 * GraphQL's messages as a refusal lists them: at most `MAX_LISTED_PROBLEMS`, each cut to
 * `MAX_PROBLEM_CHARS`, then how many more there were. The messages quote the document and the
 * variables whole ("Cannot query field \"…\"", "Variable \"$n\" got invalid value \"…\""), and
 * graphql-js stops only after 100 of them: a request's megabytes would come back as they came.
 */
export function listedProblems(messages: readonly string[]): string[] {
  return listSome(messages, {
    most: MAX_LISTED_PROBLEMS,
    show: (message) => clip(message, MAX_PROBLEM_CHARS),
    more: (count) => `and ${count} more`,
  });
}

/** Problems one refusal lists; the caller fixes them and hears of the rest on its next call. */
const MAX_LISTED_PROBLEMS = 20;
/** Room for GraphQL's longest messages (a type, a field and an argument named, five suggestions). */
const MAX_PROBLEM_CHARS = 300;

/**
 * Parses `source` (unless it is already a syntax tree, or it is too deep or has too many fragments
 * to check: see `documentBounds`) and validates it against the schema
 * (graphql-js `validate`), picks the operation to run, lets `accept` refuse it (by kind, by root
 * fields), and checks `variables` against its variable definitions. Nothing is sent when this
 * fails, and the messages are graphql-js's, so they match what a GraphQL server would say.
 */
export function checkOperation(
  schema: GraphQLSchema,
  source: string | DocumentNode,
  variables: Record<string, unknown>,
  operationName?: string,
  accept?: (operation: OperationDefinitionNode) => string | undefined,
): CheckedOperation | OperationProblems {
  // Counted before graphql-js recurses through it: see `documentBounds`.
  const unbounded = typeof source === 'string' ? documentBounds(source) : undefined;
  if (unbounded) return { problems: [unbounded] };
  let document: DocumentNode;
  try {
    document = typeof source === 'string' ? parse(source) : source;
  } catch (error) {
    return { problems: listedProblems([(error as Error).message]) };
  }
  const errors = validate(schema, document);
  if (errors.length > 0) return { problems: listedProblems(errors.map((error) => error.message)) };
  const operation = getOperationAST(document, operationName);
  if (!operation) {
    return {
      problems: [
        operationName
          ? `the document has no operation named ${quote(operationName)}`
          : 'the document has several operations: name the one to run with operationName',
      ],
    };
  }
  const refused = accept?.(operation);
  if (refused) return { problems: [refused] };
  const checked = checkVariables(schema, operation, variables);
  return checked.length > 0 ? { problems: checked } : { document, operation };
}

/**
 * GraphQL's coercion of `variables` against the operation's definitions: `[]` when they fit, else
 * its messages as a refusal lists them (see `listedProblems`).
 */
export function checkVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): string[] {
  const result = getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 20 });
  return result.errors ? listedProblems(result.errors.map((error) => error.message)) : [];
}

/**
 * The text to send for a checked operation: that operation and the fragments it uses, nothing else
 * of the document. The server then has one operation to run, whether or not it heeds
 * `operationName` (one that ran the first operation of a document would run another one).
 */
export function operationText({ document, operation }: CheckedOperation): string {
  // Validated, the document names each operation once (an anonymous one is alone, under '').
  return documentText(separateOperations(document)[operation.name?.value ?? ''] as DocumentNode);
}

/** A document as compact text, on one line: `query product($id:ID!){product(id:$id){id name}}`. */
export function documentText(document: DocumentNode): string {
  return stripIgnoredCharacters(print(document));
}

export function isProblems(value: CheckedOperation | OperationProblems): value is OperationProblems {
  return 'problems' in value;
}
