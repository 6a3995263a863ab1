import {
  describeError,
  invokeTool,
  READ_ONLY_LOCAL,
  type ToolDefinition,
  type ToolResult,
  textResult,
} from '../../src/index.js';
import type { OperationTool } from './operations-to-tools.js';

/** Above this many operations, `--tools auto` serves the meta-tools instead of one tool each. */
export const AUTO_DYNAMIC_THRESHOLD = 100;

interface Indexed {
  tool: OperationTool;
  name: string;
  fields: Array<{ words: Set<string>; weight: number }>;
}

/**
 * Dynamic mode: four meta-tools instead of one tool per operation, so that a spec with 1,000+
 * operations costs a few thousand tokens in tools/list. The model searches (ranked over names,
 * summaries, tags and paths), describes one operation (its full schemas), and calls it. Reads go
 * through `call_read_operation`, marked read-only so clients can run them without asking; anything
 * else through `call_operation`.
 */
export function dynamicTools(tools: OperationTool[], label: string): ToolDefinition[] {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // Built on the first search, not at start-up: splitting 1,000+ descriptions into words costs more
  // than reading the conversion cache.
  let index: Indexed[] | undefined;
  const indexed = (): Indexed[] =>
    (index ??= tools.map((tool) => ({
      tool,
      name: tool.name.toLowerCase(),
      fields: [
        { words: words(tool.name), weight: 3 },
        { words: words(tool.operation.summary ?? ''), weight: 2 },
        { words: words(tool.operation.tags.join(' ')), weight: 2 },
        { words: words(tool.operation.path), weight: 1.5 },
        { words: words(tool.operation.description ?? ''), weight: 0.5 },
      ],
    })));
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
      return { definition: tool.definition(), operation: tool.operation };
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
          `${definition.name} changes data; call it with call_operation instead of call_read_operation.`,
          true,
        );
      }
      // The core's validating invoke: the same argument checks and error results as a listed tool.
      return invokeTool(definition, (args.arguments ?? {}) as Record<string, unknown>, context);
    };

  const callSchema = {
    type: 'object',
    properties: {
      operation: { type: 'string', description: 'The operation name, as search_operations lists it.' },
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
        'best first. Then use describe_operation for the arguments of one, and call_read_operation ' +
        '(read-only operations) or call_operation to run it.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Keywords, e.g. "list pull requests".' },
          limit: { type: 'integer', minimum: 1, maximum: 50, description: 'How many results (default 10).' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: READ_ONLY_LOCAL,
      invoke: async (args) => {
        const limit = typeof args.limit === 'number' ? args.limit : 10;
        const results = search(indexed(), String(args.query ?? ''), limit);
        if (results.length === 0) return textResult('No operation matches; try other or fewer words.');
        const lines = results.map((tool) => {
          const { operation } = tool;
          const summary = operation.summary ? ` — ${operation.summary}` : '';
          const ro = tool.readOnly ? ' (read-only)' : '';
          return `${tool.name}: ${operation.method.toUpperCase()} ${operation.path}${summary}${ro}`;
        });
        return textResult(lines.join('\n'));
      },
    },
    {
      name: 'describe_operation',
      title: `Describe an operation of ${label}`,
      description: 'Returns one operation’s description, input schema, output schema and annotations.',
      inputSchema: {
        type: 'object',
        properties: { operation: { type: 'string', description: 'The operation name.' } },
        required: ['operation'],
        additionalProperties: false,
      },
      annotations: READ_ONLY_LOCAL,
      invoke: async (args) => {
        const found = lookup(args.operation);
        if (!('definition' in found)) return found;
        const { definition, operation } = found;
        const described = {
          name: definition.name,
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
    },
    {
      name: 'call_operation',
      title: `Call an operation of ${label}`,
      description: 'Runs any operation with its arguments; it may create, change or delete data.',
      inputSchema: callSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      invoke: call(false),
    },
  ];
}

function search(index: Indexed[], query: string, limit: number): OperationTool[] {
  const terms = [...words(query)];
  const exact = query.trim().toLowerCase();
  const scored: Array<{ tool: OperationTool; score: number }> = [];
  for (const entry of index) {
    let score = entry.name === exact ? 100 : 0;
    for (const term of terms) {
      for (const field of entry.fields) {
        if (field.words.has(term)) score += field.weight;
        else if (term.length >= 4 && [...field.words].some((w) => w.startsWith(term)))
          score += field.weight / 2;
      }
    }
    if (score > 0) scored.push({ tool: entry.tool, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : 1));
  return scored.slice(0, limit).map((entry) => entry.tool);
}

/** Lower-case words, camelCase split, with a naive singular so "pulls" finds "pull". */
function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)) {
    if (raw.length < 2) continue;
    out.add(raw);
    if (raw.length > 3 && raw.endsWith('s')) out.add(raw.slice(0, -1));
  }
  return out;
}
