import {
  buildASTSchema,
  buildClientSchema,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
  Kind,
  type ObjectTypeDefinitionNode,
  parse,
  validateSchema,
} from 'graphql';
import {
  BridgeError,
  clip,
  clipText,
  describeError,
  displayUrl,
  type Logger,
  listSome,
  MAX_RESPONSE_BYTES,
  quote,
  readInputFile,
} from '../../src/index.js';
import { describeNonGraphql, type Endpoint, sendRequest } from './send-request.js';

/**
 * Reads the schema from `file` (SDL or introspection JSON) or, without a file, by introspecting the
 * endpoint. Flaws that leave the schema usable (duplicate definitions, an oddly named query root,
 * rule violations graphql-js reports) are warnings; anything else is a `load_failed` / `invalid_input`
 * error naming the file or endpoint.
 */
export async function loadSchema(
  source: { file?: string; endpoint: Endpoint },
  log: Logger,
  signal?: AbortSignal,
): Promise<GraphQLSchema> {
  const schema = source.file
    ? await schemaFromFile(source.file, log, signal)
    : await schemaFromEndpoint(source.endpoint, log, signal);
  return tolerateInvalid(schema, source.file ?? displayUrl(source.endpoint.url), log);
}

async function schemaFromFile(file: string, log: Logger, signal?: AbortSignal): Promise<GraphQLSchema> {
  // A regular file or a pipe, never a device, within the bound of an introspection answer.
  const { bytes } = await readInputFile(file, {
    what: 'the schema file',
    maxBytes: MAX_RESPONSE_BYTES,
    ...(signal ? { signal } : {}),
  });
  // Editors on Windows write a byte-order mark, which JSON.parse refuses.
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || file.endsWith('.json')) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new BridgeError(
        'invalid_input',
        `the schema file ${file} is not valid JSON: ${describeError(error)}`,
      );
    }
    return schemaFromIntrospection(json, `the schema file ${file}`, log);
  }
  let document: DocumentNode;
  try {
    document = parse(text, { noLocation: true });
  } catch (error) {
    throw new BridgeError(
      'invalid_input',
      `the schema file ${file} is neither GraphQL SDL nor introspection JSON: ${describeError(error)}`,
      { cause: error },
    );
  }
  return schemaFromSdl(document, file, log);
}

async function schemaFromEndpoint(
  endpoint: Endpoint,
  log: Logger,
  signal?: AbortSignal,
): Promise<GraphQLSchema> {
  const query = getIntrospectionQuery({ descriptions: true });
  let response: Awaited<ReturnType<typeof sendRequest>>;
  try {
    // Parsed whatever its size (up to what is read at all): the schema is what the bridge serves.
    response = await sendRequest(endpoint, { query, operationName: 'IntrospectionQuery' }, signal, Infinity);
  } catch (error) {
    throw new BridgeError('load_failed', `${describeError(error)}; check the URL, or pass --schema FILE`, {
      cause: error,
    });
  }
  const body = response.body as { data?: { __schema?: unknown }; errors?: Array<{ message?: unknown }> };
  if (body?.data?.__schema)
    return schemaFromIntrospection(body.data, `the introspection of ${displayUrl(endpoint.url)}`, log);
  if (body === undefined) {
    // Not JSON at all: most often a web page at that URL (the site instead of its /graphql path).
    throw new BridgeError(
      'load_failed',
      `the GraphQL endpoint ${displayUrl(endpoint.url)} answered HTTP ${response.status} with ${describeNonGraphql(response.text)}; check that the URL is the GraphQL endpoint itself (often …/graphql), or pass --schema FILE`,
    );
  }
  const reasons = Array.isArray(body?.errors)
    ? quoteErrors(body.errors)
    : `HTTP ${response.status}: ${clipText(response.text, 300)}`;
  const hint =
    response.status === 401 || response.status === 403
      ? 'pass credentials with --header, or pass --schema FILE'
      : 'introspection may be disabled there: pass --schema FILE with the SDL or introspection JSON';
  throw new BridgeError(
    'load_failed',
    `the GraphQL endpoint ${displayUrl(endpoint.url)} did not answer introspection (${reasons}); ${hint}`,
  );
}

/** Errors quoted from a refused introspection, and of each the characters quoted. */
const QUOTED_ERRORS = 5;
const QUOTED_CHARS = 500;

// The endpoint's reasons, bounded: its errors and their messages can be of any number and length,
// and they end up in one line of the bridge's output.
function quoteErrors(errors: Array<{ message?: unknown }>): string {
  return listSome(errors, {
    most: QUOTED_ERRORS,
    show: (error) => clipText(String(error?.message), QUOTED_CHARS),
    more: (count) => `${count} more`,
  }).join('; ');
}

/** Accepts `{__schema}` as well as a whole response `{data: {__schema}}`. */
function schemaFromIntrospection(json: unknown, where: string, log: Logger): GraphQLSchema {
  const root = json as { data?: { __schema?: unknown }; __schema?: unknown };
  let introspection = (root?.__schema ? root : root?.data) as IntrospectionQuery | undefined;
  if (!introspection?.__schema || !Array.isArray(introspection.__schema.types)) {
    throw new BridgeError('invalid_input', `${where} is not an introspection result: no __schema.types`);
  }
  const schema = introspection.__schema;
  if (!schema.queryType) {
    const guess = guessRoot(
      schema.types.map((type) => type.name),
      'query',
    );
    if (!guess) throw new BridgeError('invalid_input', `${where} has no query type`);
    log.warn(`${where} names no query type; using ${quote(guess)}`);
    introspection = { __schema: { ...schema, queryType: { name: guess, kind: 'OBJECT' } as never } };
  }
  try {
    return buildClientSchema(introspection, { assumeValid: true });
  } catch (error) {
    // Not chained as a cause: the log would print its message whole after the cut one.
    throw new BridgeError(
      'invalid_input',
      `${where} does not describe a usable schema: ${schemaError(error)}`,
    );
  }
}

function schemaFromSdl(document: DocumentNode, file: string, log: Logger): GraphQLSchema {
  const seen = new Set<string>();
  const definitions: DefinitionNode[] = [];
  let hasSchemaDefinition = false;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.SCHEMA_DEFINITION) hasSchemaDefinition = true;
    const name = 'name' in definition && definition.name ? definition.name.value : undefined;
    const isType = name !== undefined && !definition.kind.endsWith('_EXTENSION');
    if (isType && seen.has(name)) {
      log.warn(`${file}: ${quote(name)} is defined more than once; keeping the first definition`);
      continue;
    }
    if (isType) seen.add(name);
    definitions.push(withUniqueFields(definition, file, log));
  }
  if (!hasSchemaDefinition && !seen.has('Query')) {
    const objects = definitions.filter(
      (d): d is ObjectTypeDefinitionNode => d.kind === Kind.OBJECT_TYPE_DEFINITION,
    );
    const names = objects.map((d) => d.name.value);
    const query = guessRoot(names, 'query');
    if (!query)
      throw new BridgeError('invalid_input', `${file} defines no Query type and no schema { query: … }`);
    const mutation = seen.has('Mutation') ? 'Mutation' : guessRoot(names, 'mutation');
    log.warn(
      `${file} has no Query type; using ${quote(query)} as the query root${mutation ? ` and ${quote(mutation)} as the mutation root` : ''}`,
    );
    const sdl = `schema { query: ${query}${mutation ? ` mutation: ${mutation}` : ''} }`;
    definitions.push(...parse(sdl, { noLocation: true }).definitions);
  }
  try {
    return buildASTSchema({ kind: Kind.DOCUMENT, definitions }, { assumeValidSDL: true });
  } catch (error) {
    // Not chained as a cause: the log would print its message whole after the cut one.
    throw new BridgeError(
      'invalid_input',
      `the schema file ${file} does not describe a usable schema: ${schemaError(error)}`,
    );
  }
}

/** GitHub's own published SDL defines some fields twice; graphql-js refuses that, we keep the first. */
function withUniqueFields(definition: DefinitionNode, file: string, log: Logger): DefinitionNode {
  if (!('fields' in definition) || !definition.fields || !('name' in definition) || !definition.name)
    return definition;
  const names = new Set<string>();
  const fields = (definition.fields as ReadonlyArray<{ name: { value: string } }>).filter((field) => {
    if (!names.has(field.name.value)) return names.add(field.name.value);
    log.warn(
      `${file}: field ${clip(`${definition.name?.value}.${field.name.value}`)} is defined more than once; keeping the first`,
    );
    return false;
  });
  return fields.length === definition.fields.length
    ? definition
    : ({ ...definition, fields } as unknown as DefinitionNode);
}

/** Characters of graphql-js's message about a schema that the log quotes. */
const SCHEMA_ERROR_CHARS = 500;

// graphql-js names types and fields whole in its messages ("Unknown type: …"), and the schema's
// names have no bound: one of megabytes would make a log line of megabytes.
function schemaError(error: unknown): string {
  return clip(describeError(error), SCHEMA_ERROR_CHARS);
}

// Hasura says query_root, some servers QueryRoot or RootQueryType.
function guessRoot(names: readonly string[], kind: 'query' | 'mutation'): string | undefined {
  const exact = new Set([
    kind,
    `${kind}root`,
    `${kind}_root`,
    `root${kind}`,
    `root${kind}type`,
    `${kind}type`,
  ]);
  return (
    names.find((name) => exact.has(name.toLowerCase())) ??
    names.find((name) => name.toLowerCase().includes(kind))
  );
}

/**
 * graphql-js refuses to validate documents against a schema with errors. Real schemas have harmless
 * ones (an interface field typed slightly off), so they are logged and the schema is marked
 * validated, which is how graphql-js itself caches a successful check.
 */
function tolerateInvalid(schema: GraphQLSchema, where: string, log: Logger): GraphQLSchema {
  const errors = validateSchema(schema);
  if (errors.length > 0) {
    const shown = errors.slice(0, 5).map((error) => clip(error.message, SCHEMA_ERROR_CHARS));
    log.warn(`${where}: the schema has ${errors.length} problem(s); serving it anyway`, shown);
    (schema as unknown as { __validationErrors: readonly GraphQLError[] }).__validationErrors = [];
  }
  return schema;
}
