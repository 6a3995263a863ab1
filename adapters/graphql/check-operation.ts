import {
  type DocumentNode,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  type OperationDefinitionNode,
  parse,
  validate,
} from 'graphql';

/** A document that parsed and validated, with the operation that will run. */
export interface CheckedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
}

/** Why a document or its variables were refused: GraphQL's own messages. */
export interface OperationProblems {
  problems: string[];
}

/**
 * Parses and validates `source` against the schema (graphql-js `validate`), picks the operation
 * to run, lets `accept` refuse it (by kind), and checks `variables` against its variable definitions. Nothing is sent when this
 * fails, and the messages are graphql-js's, so they match what a GraphQL server would say.
 */
export function checkOperation(
  schema: GraphQLSchema,
  source: string,
  variables: Record<string, unknown>,
  operationName?: string,
  accept?: (operation: OperationDefinitionNode) => string | undefined,
): CheckedOperation | OperationProblems {
  let document: DocumentNode;
  try {
    document = parse(source);
  } catch (error) {
    return { problems: [(error as Error).message] };
  }
  const errors = validate(schema, document);
  if (errors.length > 0) return { problems: errors.map((error) => error.message) };
  const operation = getOperationAST(document, operationName);
  if (!operation) {
    return {
      problems: [
        operationName
          ? `the document has no operation named "${operationName}"`
          : 'the document has several operations: name the one to run with operationName',
      ],
    };
  }
  const refused = accept?.(operation);
  if (refused) return { problems: [refused] };
  const checked = checkVariables(schema, operation, variables);
  return checked.length > 0 ? { problems: checked } : { document, operation };
}

/** GraphQL's coercion of `variables` against the operation's definitions: `[]` when they fit. */
export function checkVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): string[] {
  const result = getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 20 });
  return result.errors ? result.errors.map((error) => error.message) : [];
}

export function isProblems(value: CheckedOperation | OperationProblems): value is OperationProblems {
  return 'problems' in value;
}
