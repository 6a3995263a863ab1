import {
  describeError,
  invokeTool,
  MAX_TOOL_NAME_LENGTH,
  READ_ONLY_LOCAL,
  type ToolDefinition,
  type ToolPolicy,
  type ToolResult,
  textResult,
} from '../../src/index.js';
import type { OperationTool } from './operations-to-tools.js';
import {
  indexOperations,
  MAX_QUERY_LENGTH,
  MAX_QUERY_TERMS,
  type OperationIndex,
  searchOperations,
} from './search-operations.js';

/** Above this many operations, `--tools auto` serves the meta-tools instead of one tool each. */
export const AUTO_DYNAMIC_THRESHOLD = 100;

/**
 * Dynamic mode: four meta-tools instead of one tool per operation, so that a spec with 1,000+
 * operations costs a few thousand tokens in tools/list. The model searches (ranked over names,
 * summaries, tags and paths), describes one operation (its full schemas), and calls it. Reads go
 * through `call_read_operation`, marked read-only so clients can run them without asking; anything
 * else through `call_operation`.
 *
 * The config's per-tool settings (`policy`) hold for the operations as for listed tools: one it
 * does not serve is neither found, described nor run, and one it overrides or wants confirmed is
 * run as the config serves it, asking the user exactly as that tool would.
 */
export function dynamicTools(all: OperationTool[], label: string, policy?: ToolPolicy): ToolDefinition[] {
  // Asked now, by name only: nothing is converted, and the config's checks see every operation.
  const tools = policy ? all.filter((tool) => policy.serves(tool.name)) : all;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // One served definition per operation: the argument validator is compiled once per definition.
  const served = new Map<string, ToolDefinition>();
  const serve = (tool: OperationTool): ToolDefinition => {
    let definition = served.get(tool.name);
    if (!definition) {
      definition = policy ? policy.apply(tool.definition()) : tool.definition();
      served.set(tool.name, definition);
    }
    return definition;
  };
  // Built on the first search, not at start-up: splitting 1,000+ descriptions into words costs more
  // than reading the conversion cache.
  let index: OperationIndex | undefined;
  const lookup = (
    name: unknown,
  ): { definition: ToolDefinition; operation: OperationTool['operation'] } | ToolResult => {
    const tool = typeof name === 'string' ? byName.get(name) : undefined;
    if (!tool) {
      return textResult(
        `No operation is named "${String(name)}". Use search_operations to find operation names.`,
        true,
      );
    }
    try {
      return { definition: serve(tool), operation: tool.operation };
    } catch (error) {
      return textResult(describeError(error), true);
    }
  };
  const call =
    (readOnly: boolean): ToolDefinition['invoke'] =>
    async (args, context) => {
      const found = lookup(args.operation);
      if (!('definition' in found)) return found;
      const { definition } = found;
      if (readOnly && !definition.annotations.readOnlyHint) {
        return textResult(
          `${String(args.operation)} changes data; call it with call_operation instead of call_read_operation.`,
          true,
        );
      }
      // The core's validating invoke: the same argument checks, error results and questions to the
      // user (confirmation, missing arguments) as a listed tool.
      return invokeTool(definition, (args.arguments ?? {}) as Record<string, unknown>, context);
    };
  // The operation a call runs, for what the core checks per tool before it runs (scopes).
  const runs = (args: Record<string, unknown>): ToolDefinition | undefined => {
    const found = lookup(args.operation);
    return 'definition' in found ? found.definition : undefined;
  };

  const callSchema = {
    type: 'object',
    properties: {
      operation: {
        type: 'string',
        maxLength: MAX_TOOL_NAME_LENGTH,
        description: 'The operation name, as search_operations lists it.',
      },
      arguments: {
        type: 'object',
        description: 'The arguments, matching the inputSchema that describe_operation returns.',
      },
    },
    required: ['operation'],
    additionalProperties: false,
  };

  return [
    {
      name: 'search_operations',
      title: `Search the operations of ${label}`,
      description:
        `Finds operations of the ${label} API by keywords (matched against names, summaries, tags and paths), ` +
        `best first; only the first ${MAX_QUERY_TERMS} distinct words of the query count. Then use ` +
        'describe_operation for the arguments of one, and call_read_operation (read-only operations) ' +
        'or call_operation to run it.',
      inputSchema: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            maxLength: MAX_QUERY_LENGTH,
            description: 'Keywords, e.g. "list pull requests".',
          },
          limit: { type: 'integer', minimum: 1, maximum: 50, description: 'How many results (default 10).' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: READ_ONLY_LOCAL,
      invoke: async (args) => {
        const limit = typeof args.limit === 'number' ? args.limit : 10;
        index ??= indexOperations(tools);
        const { tools: results, ignoredWords } = searchOperations(index, String(args.query ?? ''), limit);
        const ignored =
          ignoredWords > 0
            ? [`(${ignoredWords} more words ignored: only the first ${MAX_QUERY_TERMS} distinct words count)`]
            : [];
        if (results.length === 0) {
          return textResult(['No operation matches; try other or fewer words.', ...ignored].join('\n'));
        }
        const lines = results.map((tool) => {
          const { operation } = tool;
          const summary = operation.summary ? ` — ${operation.summary}` : '';
          const ro = tool.readOnly ? ' (read-only)' : '';
          return `${tool.name}: ${operation.method.toUpperCase()} ${operation.path}${summary}${ro}`;
        });
        return textResult([...lines, ...ignored].join('\n'));
      },
    },
    {
      name: 'describe_operation',
      title: `Describe an operation of ${label}`,
      description: 'Returns one operation’s description, input schema, output schema and annotations.',
      inputSchema: {
        type: 'object',
        properties: {
          operation: { type: 'string', maxLength: MAX_TOOL_NAME_LENGTH, description: 'The operation name.' },
        },
        required: ['operation'],
        additionalProperties: false,
      },
      annotations: READ_ONLY_LOCAL,
      invoke: async (args) => {
        const found = lookup(args.operation);
        if (!('definition' in found)) return found;
        const { definition, operation } = found;
        const described = {
          // The name call_operation takes, whatever name the config would list the tool under.
          name: String(args.operation),
          method: operation.method.toUpperCase(),
          path: operation.path,
          description: definition.description,
          annotations: definition.annotations,
          inputSchema: definition.inputSchema,
          ...(definition.outputSchema ? { outputSchema: definition.outputSchema } : {}),
        };
        return textResult(JSON.stringify(described));
      },
    },
    {
      name: 'call_read_operation',
      title: `Call a read-only operation of ${label}`,
      description: 'Runs one read-only operation (as search_operations marks them) with its arguments.',
      inputSchema: callSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      invoke: call(true),
      runs,
    },
    {
      name: 'call_operation',
      title: `Call an operation of ${label}`,
      description: 'Runs any operation with its arguments; it may create, change or delete data.',
      inputSchema: callSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      invoke: call(false),
      runs,
    },
  ];
}
