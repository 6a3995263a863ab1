import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { graphqlCommand } from '../../adapters/graphql/index.js';

/** Flags as the command line parses them, then through the adapter. */
function fromFlags(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: graphqlCommand.options,
    allowPositionals: true,
    strict: true,
  });
  return graphqlCommand.parseFlags(positionals, values);
}

describe('graphql options: flags and config file give the same object', () => {
  it('parses every flag into the shape the config schema accepts', () => {
    const options = fromFlags([
      'https://api.example.com/graphql',
      '--schema',
      'schema.graphql',
      '--operations',
      'ops',
      '--header',
      'Authorization: Bearer x:y',
      '--header',
      'X-Team:tools',
      '--generic',
      '--mutations',
      'none',
      '--scalar',
      'DateTime=date-time',
      '--scalar',
      'Money={"type":"number","minimum":0}',
      '--depth',
      '3',
      '--breadth',
      '20',
      '--timeout',
      '5000',
    ]);
    const expected = {
      endpoint: 'https://api.example.com/graphql',
      schema: 'schema.graphql',
      operations: 'ops',
      headers: { Authorization: 'Bearer x:y', 'X-Team': 'tools' },
      generic: true,
      mutations: 'none',
      scalars: { DateTime: 'date-time', Money: { type: 'number', minimum: 0 } },
      depth: 3,
      breadth: 20,
      timeout: 5000,
    };
    expect(options).toEqual(expected);
    expect(graphqlCommand.configSchema.parse(expected)).toEqual(expected);
  });

  it('the config schema rejects unknown keys and wrong values, naming them', () => {
    const unknown = graphqlCommand.configSchema.safeParse({ endpoint: 'https://x/graphql', header: {} });
    expect(unknown.success).toBe(false);
    expect(JSON.stringify(unknown.error?.issues)).toContain('header');
    const mutations = graphqlCommand.configSchema.safeParse({
      endpoint: 'https://x/graphql',
      mutations: 'some',
    });
    expect(JSON.stringify(mutations.error?.issues)).toContain('mutations');
    expect(graphqlCommand.configSchema.safeParse({ endpoint: 'not a url' }).success).toBe(false);
  });

  it('documents every flag in its usage', () => {
    for (const flag of Object.keys(graphqlCommand.options))
      expect(graphqlCommand.usage).toContain(`--${flag}`);
    expect(graphqlCommand.usage).toContain('<endpoint-url>');
  });
});
