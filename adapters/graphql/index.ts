import { resolve } from 'node:path';
import type { AdapterCommand, LoadContext, Source, ToolDefinition } from '../../src/index.js';
import { displayUrl, emptyCredentialWarnings, normalizeHeaders } from '../../src/index.js';
import { fieldsToTools, MAX_FIELD_TOOLS, type ToolFactoryContext } from './fields-to-tools.js';
import { genericTools } from './generic-tools.js';
import { loadSchema } from './load-schema.js';
import { operationsToTools } from './operations-to-tools.js';
import {
  DEFAULT_BREADTH,
  DEFAULT_DEPTH,
  DEFAULT_TIMEOUT,
  type GraphqlOptions,
  graphqlConfigSchema,
  graphqlFlagNames,
  graphqlFlags,
  graphqlUsage,
  parseGraphqlFlags,
} from './options.js';
import type { Endpoint } from './send-request.js';
import { endpointAuth } from './sign-in.js';
import { InputSchemaBuilder } from './variables-to-json-schema.js';

export type { GraphqlOptions } from './options.js';

/**
 * `bridge graphql <endpoint-url>`: a GraphQL API as MCP tools.
 *
 * @example bridge graphql https://api.github.com/graphql --header 'Authorization: bearer ${GITHUB_TOKEN}'
 */
export const graphqlCommand: AdapterCommand<GraphqlOptions> = {
  name: 'graphql',
  summary: 'serve a GraphQL API: one tool per root field and per operation document',
  usage: graphqlUsage,
  options: graphqlFlags,
  parseFlags: parseGraphqlFlags,
  flagNames: graphqlFlagNames,
  configSchema: graphqlConfigSchema,
  createSource: createGraphqlSource,
};

/**
 * The GraphQL source: loads the schema (file or introspection), then builds the tools in order —
 * operation documents, root Query fields, root Mutation fields, generic tools.
 */
export function createGraphqlSource(options: GraphqlOptions, baseDir: string): Source {
  const endpoint: Endpoint = {
    url: options.endpoint,
    // Already expanded: by the config's loading or by --header's parsing, never twice.
    headers: normalizeHeaders(options.headers ?? {}),
    timeout: options.timeout ?? DEFAULT_TIMEOUT,
  };
  const auth = options.oauth && endpointAuth(options.oauth, process.env, endpoint.timeout, endpoint.url);
  if (auth) endpoint.auth = auth;
  const schemaFile = options.schema ? resolve(baseDir, options.schema) : undefined;
  const operationsDir = options.operations ? resolve(baseDir, options.operations) : undefined;
  let watched: string[] = [];
  return {
    // Shown in logs and messages: a credential in the URL's query or user info is left out.
    label: `graphql ${displayUrl(options.endpoint)}`,
    async load({ log, signal }: LoadContext): Promise<ToolDefinition[]> {
      for (const warning of emptyCredentialWarnings(endpoint.headers)) log.warn(warning);
      const schema = await loadSchema({ ...(schemaFile ? { file: schemaFile } : {}), endpoint }, log, signal);
      const context: ToolFactoryContext = {
        schema,
        endpoint,
        budget: { depth: options.depth ?? DEFAULT_DEPTH, breadth: options.breadth ?? DEFAULT_BREADTH },
        inputs: new InputSchemaBuilder(options.scalars),
        log,
      };
      const mutations = options.mutations !== 'none';
      const tools: ToolDefinition[] = [];
      watched = schemaFile ? [schemaFile] : [];
      // Operations first: on a name clash the registry lets the first keep the plain name, and an
      // operation someone wrote by hand matters more than a generated field tool.
      if (operationsDir) {
        const operations = await operationsToTools(context, operationsDir, signal);
        const kept = mutations
          ? operations.tools
          : operations.tools.filter((tool) => tool.annotations.readOnlyHint);
        tools.push(...kept);
        watched.push(...operations.files);
      }
      const queries = fieldsToTools(context, 'query');
      tools.push(...queries);
      if (mutations) tools.push(...fieldsToTools(context, 'mutation', MAX_FIELD_TOOLS - queries.length));
      if (options.generic) tools.push(...genericTools(context, mutations));
      if (tools.length === 0) log.warn(`graphql ${displayUrl(options.endpoint)}: the schema yields no tools`);
      return tools;
    },
    watchedFiles: () => watched,
  };
}
