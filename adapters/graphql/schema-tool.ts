import { type GraphQLSchema, isInputObjectType, isInterfaceType, isObjectType, printType } from 'graphql';
import { clip, quote, READ_ONLY_LOCAL, type ToolDefinition, textResult } from '../../src/index.js';
import { paged } from './response-to-result.js';

const MAX_MATCHES = 60;

/**
 * `graphql_schema`: lets a model that writes its own documents (for `graphql_query` and
 * `graphql_mutate`) read the schema a piece at a time — one type's SDL, or a search over type and
 * field names — instead of receiving a 1 MB SDL up front. Answers from memory, so it is local.
 */
export function schemaTool(schema: GraphQLSchema): ToolDefinition {
  const roots = [schema.getQueryType()?.name, schema.getMutationType()?.name]
    .flatMap((name) => (name ? [clip(name)] : []))
    .join(' and ');
  return {
    name: 'graphql_schema',
    title: 'GraphQL schema',
    description: `Reads the GraphQL schema: pass \`type\` for one type's definition (SDL with descriptions; the roots are ${roots}), or \`search\` for the types and fields whose names contain a word.`,
    inputSchema: {
      type: 'object',
      properties: {
        type: { type: 'string', description: 'A type name, e.g. "Query".' },
        search: {
          type: 'string',
          description: 'A word to look for in type and field names (case-insensitive).',
        },
      },
      additionalProperties: false,
    },
    annotations: READ_ONLY_LOCAL,
    async invoke(args, context) {
      if (typeof args.type === 'string' && args.type !== '') {
        const type = schema.getType(args.type);
        if (!type)
          return textResult(
            `graphql_schema: no type named ${quote(args.type)}${suggest(schema, args.type)}`,
            true,
          );
        // Paged as a call's result is: GitHub's Mutation type alone is 58 kB of SDL.
        return { content: await paged(printType(type), context, 'graphql_schema', 'text/plain') };
      }
      if (typeof args.search === 'string' && args.search.trim() !== '')
        return { content: await paged(search(schema, args.search), context, 'graphql_schema', 'text/plain') };
      return textResult('graphql_schema: pass `type` or `search`.', true);
    },
  };
}

function search(schema: GraphQLSchema, word: string): string {
  const needle = word.trim().toLowerCase();
  const matches: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (type.name.toLowerCase().includes(needle)) matches.push(`type ${type.name}`);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (field.name.toLowerCase().includes(needle))
          matches.push(`${type.name}.${field.name}: ${String(field.type)}`);
      }
    }
  }
  if (matches.length === 0) return `No type or field name contains ${quote(word)}.`;
  const shown = matches.slice(0, MAX_MATCHES);
  const more =
    matches.length > shown.length ? `\n… and ${matches.length - shown.length} more: narrow the search.` : '';
  return `${shown.join('\n')}${more}`;
}

function suggest(schema: GraphQLSchema, name: string): string {
  const lower = name.toLowerCase();
  const close = Object.keys(schema.getTypeMap())
    .filter((candidate) => candidate.toLowerCase() === lower || candidate.toLowerCase().includes(lower))
    .slice(0, 5)
    .map((candidate) => clip(candidate));
  return close.length > 0 ? `; did you mean ${close.join(', ')}?` : '';
}
