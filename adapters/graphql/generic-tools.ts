import type { JsonSchema, ToolDefinition, ToolResult } from '../../src/index.js';
import { checkOperation, isProblems, operationText } from './check-operation.js';
import type { ToolFactoryContext } from './fields-to-tools.js';
import { inferAnnotations } from './infer-annotations.js';
import { runOperation } from './response-to-result.js';
import { schemaTool } from './schema-tool.js';

const INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      description: 'A GraphQL document, e.g. "query($n: Int!) { items(first: $n) { id } }".',
    },
    variables: {
      type: ['object', 'string'],
      description: 'The variables, as an object or as a JSON string.',
    },
    operationName: {
      type: 'string',
      description: 'Which operation of the document to run, when it has several.',
    },
  },
  required: ['query'],
  additionalProperties: false,
};

/**
 * `graphql_schema` reads the schema piece by piece; `graphql_query` runs any query and refuses mutations, so it can be read-only and auto-approved;
 * `graphql_mutate` runs mutations only, and says it may destroy data. Apollo's single `execute`
 * cannot tell the two apart, so clients ask before every read.
 */
export function genericTools(context: ToolFactoryContext, mutations: boolean): ToolDefinition[] {
  const tools = [schemaTool(context.schema), genericTool(context, 'query')];
  if (mutations && context.schema.getMutationType()) tools.push(genericTool(context, 'mutation'));
  return tools;
}

function genericTool(context: ToolFactoryContext, kind: 'query' | 'mutation'): ToolDefinition {
  const name = kind === 'query' ? 'graphql_query' : 'graphql_mutate';
  const annotations = inferAnnotations(kind, []);
  return {
    name,
    title: kind === 'query' ? 'GraphQL query (read-only)' : 'GraphQL mutation',
    description:
      kind === 'query'
        ? 'Runs a GraphQL query against the API (read-only: mutations are refused). The document is validated against the schema first.'
        : 'Runs a GraphQL mutation against the API (queries belong in graphql_query). The document is validated against the schema first.',
    inputSchema: INPUT_SCHEMA,
    // A mutation of unknown name may delete anything: say so.
    annotations: kind === 'query' ? annotations : { ...annotations, destructiveHint: true },
    async invoke(args, toolContext) {
      const query = String(args.query);
      const operationName = typeof args.operationName === 'string' ? args.operationName : undefined;
      const variables = parseVariables(args.variables);
      if (typeof variables === 'string') return refuse(name, [variables]);
      const checked = checkOperation(context.schema, query, variables, operationName, ({ operation }) => {
        if (operation === kind) return undefined;
        if (operation === 'subscription')
          return 'the operation is a subscription: subscriptions are not served';
        return kind === 'query'
          ? 'the operation is a mutation: graphql_query is read-only; use graphql_mutate'
          : `the operation is a ${operation}: use graphql_query`;
      });
      if (isProblems(checked)) return refuse(name, checked.problems);
      // Only the checked operation is sent: were the whole document sent, a server that ignores
      // operationName could run another operation in it (a mutation, through graphql_query).
      return runOperation(
        context.endpoint,
        { query: operationText(checked), variables, ...(operationName ? { operationName } : {}) },
        toolContext,
        name,
      );
    },
  };
}

/** Variables as an object or a JSON string; a string result is the reason they were refused. */
function parseVariables(raw: unknown): Record<string, unknown> | string {
  if (raw === undefined || raw === null || raw === '') return {};
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return `variables is a string but not JSON: ${(error as Error).message}`;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'variables must be a JSON object';
  return value as Record<string, unknown>;
}

function refuse(name: string, problems: string[]): ToolResult {
  return {
    content: [
      { type: 'text', text: `${name} refused the request:\n${problems.map((p) => `- ${p}`).join('\n')}` },
    ],
    isError: true,
  };
}
