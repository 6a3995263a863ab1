import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SchemaConverter } from '../../adapters/openapi/convert-schema.js';
import { createOpenApiSource } from '../../adapters/openapi/index.js';
import { OUTPUT_BUDGET } from '../../adapters/openapi/plan-output.js';
import { boundSchema, compileValidator, silentLogger, type ToolDefinition } from '../../src/index.js';
import { PROPERTY_DESCRIPTION_BUDGET, TOOL_DESCRIPTION_BUDGET } from '../../src/trim-text.js';

// GitHub's tools/list within 1.6 MB, by cuts a model loses least by (README, "Description budgets"
// and "Performance"): what each cut leaves, on the real spec.
const GITHUB = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');

let tools: ToolDefinition[];
const byName = (name: string) => tools.find((tool) => tool.name === name) as ToolDefinition;
const property = (tool: ToolDefinition, name: string) =>
  (tool.inputSchema.properties as Record<string, { description?: string }>)[name];

beforeAll(async () => {
  const source = createOpenApiSource({ spec: GITHUB, tools: 'all', cache: false }, dirname(GITHUB));
  tools = await source.load({ log: silentLogger, signal: new AbortController().signal });
  await source.close?.();
}, 300_000);

// Every `key` keyword in a schema, skipping property names and data (enum, default, examples).
function keywords(schema: unknown, key: string, found: unknown[] = []): unknown[] {
  if (Array.isArray(schema)) for (const item of schema) keywords(item, key, found);
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return found;
  for (const [name, value] of Object.entries(schema)) {
    if (name === key) found.push(value);
    if (['enum', 'const', 'default', 'examples'].includes(name)) continue;
    if (['properties', 'patternProperties', '$defs'].includes(name) && value && typeof value === 'object') {
      for (const sub of Object.values(value)) keywords(sub, key, found);
    } else keywords(value, key, found);
  }
  return found;
}

describe("GitHub's tools/list", () => {
  it('is at most 1.6 MB with every tool', () => {
    expect(tools.length).toBeGreaterThan(1_200);
    const listed = tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      outputSchema,
      annotations,
    }));
    expect(Buffer.byteLength(JSON.stringify({ tools: listed }))).toBeLessThanOrEqual(1_600_000);
  });

  it('keeps each description within its budget, and never empty', () => {
    for (const tool of tools) {
      expect(tool.description.length).toBeLessThanOrEqual(TOOL_DESCRIPTION_BUDGET);
      for (const text of keywords(tool.inputSchema, 'description')) {
        expect((text as string).length).toBeLessThanOrEqual(PROPERTY_DESCRIPTION_BUDGET);
        expect((text as string).trim()).not.toBe('');
      }
      if (tool.outputSchema?.properties)
        expect(JSON.stringify(tool.outputSchema.properties).length).toBeLessThanOrEqual(OUTPUT_BUDGET + 2);
    }
  });

  it('says once per tool what is not repeated per parameter, and keeps what a model writes', () => {
    const get = byName('repos_get');
    expect(property(get, 'owner')?.description).toBe('The account owner of the repository.');
    expect(property(get, 'repo')?.description).toBe(
      'The name of the repository without the `.git` extension.',
    );
    // Not boilerplate: a format in backticks, and a first sentence.
    const commits = byName('repos_list-commits');
    expect(property(commits, 'since')?.description).toContain('`YYYY-MM-DDTHH:MM:SSZ`');
    const orgs = tools.filter((tool) => property(tool, 'org'));
    expect(orgs.length).toBeGreaterThan(300);
    for (const tool of orgs) expect(property(tool, 'org')?.description).toBe('The organization name.');
    expect(JSON.stringify(tools)).not.toContain('The name is not case sensitive.');
  });

  it('has no nested `title` keyword in input schemas; a property named title stays', () => {
    for (const tool of tools) expect(keywords(tool.inputSchema, 'title')).toEqual([]);
    const create = byName('issues_create');
    const body = (create.inputSchema.properties as Record<string, { properties: Record<string, unknown> }>)
      .body;
    expect(body?.properties.title).toBeDefined();
    expect(create.inputSchema.required).toContain('body');
  });
});

describe('schema titles', () => {
  it('are left out as annotations; properties named title and their validation stay', () => {
    const document = {
      components: {
        schemas: {
          Rule: {
            title: 'Repository Rule',
            type: 'object',
            properties: { title: { title: 'Title', type: 'string', maxLength: 3 } },
            required: ['title'],
          },
        },
      },
    };
    const converter = new SchemaConverter(document, 'openapi30');
    const schema = converter.convertInline(
      { title: 'Body', oneOf: [{ $ref: '#/components/schemas/Rule' }, { title: 'none', type: 'null' }] },
      'request',
    );
    // Every definition it reaches, without a bound.
    const defs = boundSchema(
      schema,
      (name) => converter.definition(name, 'request'),
      Number.POSITIVE_INFINITY,
    )?.schema.$defs;
    expect(schema).toEqual({ oneOf: [{ $ref: '#/$defs/Rule' }, { type: 'null' }] });
    expect(defs).toEqual({
      Rule: { type: 'object', properties: { title: { type: 'string', maxLength: 3 } }, required: ['title'] },
    });
    const validate = compileValidator({ ...schema, $defs: defs });
    expect(validate({ title: 'abc' })).toEqual([]);
    expect(validate({ title: 'abcd' })).not.toEqual([]);
    expect(validate({})).not.toEqual([]);
  });
});
