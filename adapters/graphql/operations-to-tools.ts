import { opendir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  type DefinitionNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
  parse,
  print,
  TokenKind,
  typeFromAST,
  validate,
  visit,
} from 'graphql';
import {
  BridgeError,
  clip,
  cutSchemasWarning,
  describeError,
  readInputFile,
  TOOL_DESCRIPTION_BUDGET,
  type ToolDefinition,
  trimText,
} from '../../src/index.js';
import { checkVariables, listedProblems } from './check-operation.js';
import { documentBounds, MAX_FRAGMENTS } from './document-bounds.js';
import type { ToolFactoryContext } from './fields-to-tools.js';
import { inferAnnotations } from './infer-annotations.js';
import { runOperation } from './response-to-result.js';
import type { InputSlot } from './variables-to-json-schema.js';

/** The operation files read, for hot reload. */
export interface OperationTools {
  tools: ToolDefinition[];
  files: string[];
}

/**
 * One tool per named query or mutation in the `.graphql` / `.gql` files under `dir` (recursively).
 * Fragments may live in any file. The comment lines right above an operation are its description.
 * Operations that do not validate against the schema, anonymous ones and subscriptions are skipped
 * with a warning.
 */
export async function operationsToTools(
  context: ToolFactoryContext,
  dir: string,
  signal?: AbortSignal,
): Promise<OperationTools> {
  const files = await listGraphqlFiles(dir);
  const operations: Array<{ node: OperationDefinitionNode; file: string; description: string }> = [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const file of files) {
    const document = await parseFile(file, signal);
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
      if (definition.kind === Kind.OPERATION_DEFINITION) {
        operations.push({ node: definition, file, description: leadingComments(definition) });
      }
    }
  }
  const tools: ToolDefinition[] = [];
  const cut: string[] = [];
  for (const { node, file, description } of operations) {
    const where = `${relative(dir, file) || file}`;
    if (!node.name) {
      context.log.warn(
        `${where}: an anonymous ${node.operation} is skipped; give it a name to make it a tool`,
      );
      continue;
    }
    if (node.operation === 'subscription') {
      context.log.warn(`${where}: subscription ${node.name.value} is skipped (subscriptions are not served)`);
      continue;
    }
    // Each file was counted alone (see `parseFile`); an operation may spread fragments of them
    // all, and graphql-js's validation recurses along a chain of them.
    const used = usedFragments(node, fragments);
    if (used.length > MAX_FRAGMENTS) {
      context.log.warn(
        `${where}: operation ${node.name.value} is skipped: it uses more than ${MAX_FRAGMENTS} fragments, more than the bridge checks`,
      );
      continue;
    }
    const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [node, ...used] };
    const errors = validate(context.schema, document);
    if (errors.length > 0) {
      context.log.warn(
        `${where}: operation ${node.name.value} is skipped: ${listedProblems(errors.map((e) => e.message)).join('; ')}`,
      );
      continue;
    }
    try {
      tools.push(operationTool(context, node, document, description, cut));
    } catch (error) {
      // A variable's type from the schema may have a name too long to serve (see `boundedName`).
      context.log.warn(`${where}: operation ${node.name.value} is skipped: ${(error as Error).message}`);
    }
  }
  const warning = cutSchemasWarning('operation', cut);
  if (warning) context.log.warn(warning);
  return { tools, files };
}

function operationTool(
  context: ToolFactoryContext,
  node: OperationDefinitionNode,
  document: DocumentNode,
  description: string,
  cut: string[],
): ToolDefinition {
  const name = node.name?.value ?? 'operation';
  const kind = node.operation === 'mutation' ? 'mutation' : 'query';
  const slots: InputSlot[] = (node.variableDefinitions ?? []).map((definition) => {
    const type = typeFromAST(context.schema, definition.type);
    if (!type)
      throw new BridgeError('internal', `variable $${definition.variable.name.value} has an unknown type`);
    return {
      name: definition.variable.name.value,
      type: type as InputSlot['type'],
      // A variable with a default is optional even when its type is non-null.
      defaultValue: definition.defaultValue ? print(definition.defaultValue) : undefined,
    };
  });
  const bounded = context.inputs.objectSchema(slots);
  const inputSchema = bounded.schema;
  if (bounded.cut > 0) cut.push(name);
  // Defaults are GraphQL literals, not JSON: keep them out of the schema, the server applies them.
  stripDefaults(inputSchema);
  const query = print(document);
  const rootFields = node.selectionSet.selections.flatMap((selection) =>
    selection.kind === Kind.FIELD ? [selection.name.value] : [],
  );
  return {
    name,
    title: operationTitle(name),
    description:
      trimText(description, TOOL_DESCRIPTION_BUDGET) || `The ${name} ${kind} (${rootFields.join(', ')}).`,
    inputSchema,
    annotations: inferAnnotations(kind, [name, ...rootFields]),
    async invoke(args, toolContext) {
      const problems = checkVariables(context.schema, node, args);
      if (problems.length > 0) {
        return { content: [{ type: 'text', text: `${name}: ${problems.join('\n')}` }], isError: true };
      }
      return runOperation(
        context.endpoint,
        { query, variables: args, operationName: name },
        toolContext,
        name,
      );
    },
  };
}

/** `SearchOpenIssues` or `search_open_issues` → "Search open issues": what clients show the user. */
export function operationTitle(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .split(/[\s_]+/)
    .filter(Boolean)
    .map((word, index) => (index > 0 && /^[A-Z][a-z]/.test(word) ? word.toLowerCase() : word));
  const title = words.join(' ');
  return title.charAt(0).toUpperCase() + title.slice(1);
}

function stripDefaults(schema: Record<string, unknown>): void {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  for (const property of Object.values(properties ?? {})) delete property.default;
}

/** Entries of an operations directory looked at, and `.graphql` files read, at most. */
const MAX_DIRECTORY_ENTRIES = 100_000;
const MAX_OPERATION_FILES = 10_000;

// The `.graphql`/`.gql` files under `dir` (symbolic links not followed), sorted. A directory far
// larger than any set of operations (`--operations ~` by mistake) is refused once its bound is
// reached, instead of listed whole first.
async function listGraphqlFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  const pending = [''];
  let seen = 0;
  try {
    for (let relative = pending.pop(); relative !== undefined; relative = pending.pop()) {
      for await (const entry of await opendir(join(dir, relative))) {
        if (++seen > MAX_DIRECTORY_ENTRIES) {
          throw new BridgeError(
            'invalid_input',
            `the operations directory ${dir} holds more than ${MAX_DIRECTORY_ENTRIES.toLocaleString('en-US')} entries: point --operations at the directory of your .graphql files`,
          );
        }
        const path = relative ? join(relative, entry.name) : entry.name;
        if (entry.isDirectory()) pending.push(path);
        // Regular files and pipes of its own: a link (to a file elsewhere, to a device) is not followed.
        else if ((entry.isFile() || entry.isFIFO()) && /\.(graphql|gql)$/.test(entry.name)) files.push(path);
      }
    }
  } catch (error) {
    if (error instanceof BridgeError) throw error;
    throw new BridgeError(
      'invalid_input',
      `cannot read the operations directory ${dir}: ${describeError(error)}`,
      {
        cause: error,
      },
    );
  }
  if (files.length === 0)
    throw new BridgeError('invalid_input', `the operations directory ${dir} has no .graphql files`);
  if (files.length > MAX_OPERATION_FILES) {
    throw new BridgeError(
      'invalid_input',
      `the operations directory ${dir} holds ${files.length.toLocaleString('en-US')} .graphql files, more than the ${MAX_OPERATION_FILES.toLocaleString('en-US')} the bridge reads`,
    );
  }
  return files.sort().map((entry) => join(dir, entry));
}

/** The most an operation file may hold: far more than the tokens `documentBounds` lets through. */
const MAX_OPERATION_FILE_BYTES = 4 * 2 ** 20;

async function parseFile(file: string, signal?: AbortSignal): Promise<DocumentNode> {
  // A regular file or a pipe, never a device; counted before graphql-js, which recurses, parses it.
  const { bytes } = await readInputFile(file, {
    what: 'the operation file',
    maxBytes: MAX_OPERATION_FILE_BYTES,
    ...(signal ? { signal } : {}),
  });
  const text = bytes.toString('utf8');
  const tooLarge = documentBounds(text);
  if (tooLarge) throw new BridgeError('invalid_input', `the operation file ${file} is refused: ${tooLarge}`);
  try {
    return parse(text);
  } catch (error) {
    throw new BridgeError(
      'invalid_input',
      `the operation file ${file} does not parse: ${clip(describeError(error), 500)}`,
      {
        cause: error,
      },
    );
  }
}

/** The `#` comment lines directly above a definition (graphql-js keeps them in the token list). */
function leadingComments(definition: DefinitionNode): string {
  const lines: string[] = [];
  let token = definition.loc?.startToken.prev;
  let line = definition.loc?.startToken.line ?? 0;
  while (token && token.kind === TokenKind.COMMENT && token.line === line - 1) {
    lines.unshift((token.value ?? '').trim());
    line = token.line;
    token = token.prev;
  }
  return lines.join(' ').trim();
}

/** The fragments `node` spreads, transitively. */
function usedFragments(
  node: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): FragmentDefinitionNode[] {
  const used = new Map<string, FragmentDefinitionNode>();
  const pending: Array<OperationDefinitionNode | FragmentDefinitionNode> = [node];
  while (pending.length > 0) {
    visit(pending.pop() as OperationDefinitionNode, {
      FragmentSpread(spread) {
        const fragment = fragments.get(spread.name.value);
        if (fragment && !used.has(spread.name.value)) {
          used.set(spread.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return [...used.values()];
}
