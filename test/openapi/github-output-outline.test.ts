import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SchemaConverter } from '../../adapters/openapi/convert-schema.js';
import { createOpenApiSource } from '../../adapters/openapi/index.js';
import { listOperations, type OperationInfo } from '../../adapters/openapi/list-operations.js';
import { type LoadedDocument, loadDocument } from '../../adapters/openapi/load-document.js';
import { isJson } from '../../adapters/openapi/media-types.js';
import { nameTools } from '../../adapters/openapi/name-tools.js';
import { OUTPUT_BUDGET } from '../../adapters/openapi/plan-output.js';
import { deref, isObject, type Json } from '../../adapters/openapi/resolve-ref.js';
import { boundSchema, compileValidator, silentLogger, type ToolDefinition } from '../../src/index.js';
import { random, sampleArguments } from './helpers/sample-arguments.js';

// Output schemas are outlines of the spec's response schemas (top-level properties and their types,
// within a budget). Clients validate structuredContent against them, so an outline must never
// refuse a response the API documents: checked on every operation of GitHub's REST spec against
// the response examples the spec carries, and against values generated from the full response
// schema (converted to JSON Schema 2020-12 the same way as input schemas).
const GITHUB = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');

interface Served {
  operation: OperationInfo;
  tool: ToolDefinition;
}

let loaded: LoadedDocument;
let served: Served[];

beforeAll(async () => {
  loaded = await loadDocument(GITHUB, dirname(GITHUB));
  const operations = listOperations(loaded.document, loaded.version);
  const names = nameTools(operations);
  const source = createOpenApiSource({ spec: GITHUB, tools: 'all', cache: false }, dirname(GITHUB));
  const tools = await source.load({ log: silentLogger, signal: new AbortController().signal });
  await source.close?.();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  served = operations.flatMap((operation, index) => {
    const tool = byName.get(names[index] as string);
    return tool ? [{ operation, tool }] : [];
  });
  expect(served.length).toBe(operations.length);
}, 300_000);

// The JSON media object of the first 2xx response: where the output schema comes from.
function successMedia(operation: OperationInfo): Json | undefined {
  const responses = isObject(operation.operation.responses) ? operation.operation.responses : {};
  const code = Object.keys(responses)
    .filter((key) => /^2(\d\d|XX)$/i.test(key))
    .sort()[0];
  if (code === undefined) return undefined;
  const response = deref<Json>(loaded.document, responses[code]);
  const content = isObject(response.content) ? response.content : {};
  const type = Object.keys(content).find(isJson);
  const media = type === undefined ? undefined : content[type];
  return isObject(media) ? media : undefined;
}

// The spec's examples of a response; a `null` example stands for "no body" (202, 204-like answers).
function examplesOf(media: Json): unknown[] {
  const out: unknown[] = [];
  if (media.example !== undefined) out.push(media.example);
  if (isObject(media.examples)) {
    for (const example of Object.values(media.examples)) {
      let value = deref<Json>(loaded.document, example).value;
      // A few examples nest a reference to another example inside `value`.
      if (isObject(value) && typeof value.$ref === 'string')
        value = deref<Json>(loaded.document, value).value;
      out.push(value);
    }
  }
  return out.filter((value) => value !== undefined && value !== null);
}

// The full response schema, converted to JSON Schema 2020-12 as input schemas are, with its `$defs`;
// with its compiled validator (compiling GitHub's response graphs is most of this file's time).
let converter: SchemaConverter;
const compiled = new Map<unknown, { schema: Json; validate: ReturnType<typeof compileValidator> }>();
function fullSchema(schema: unknown): { schema: Json; validate: ReturnType<typeof compileValidator> } {
  let entry = compiled.get(schema);
  if (!entry) {
    converter ??= new SchemaConverter(loaded.document, loaded.version);
    // With every definition it reaches, without a bound.
    const bounded = boundSchema(
      converter.convertInline(schema, 'response'),
      (name) => converter.definition(name, 'response'),
      Number.POSITIVE_INFINITY,
    );
    const full: Json = { ...bounded?.schema };
    entry = { schema: full, validate: compileValidator(full) };
    compiled.set(schema, entry);
  }
  return entry;
}

describe('GitHub output schemas, outlined', () => {
  it("accept every response example of the spec that the spec's own schema accepts, and more", {
    timeout: 300_000,
  }, () => {
    let checked = 0;
    let lenient = 0;
    const refused: string[] = [];
    for (const { operation, tool } of served) {
      const media = successMedia(operation);
      if (!tool.outputSchema || !media) continue;
      const examples = examplesOf(media);
      if (examples.length === 0) continue;
      const outline = compileValidator(tool.outputSchema);
      const full = fullSchema(media.schema).validate;
      for (const example of examples) {
        checked++;
        // Each judges its own copy: the validators correct lossless mismatches in place.
        const byFull = full(structuredClone(example)).length === 0;
        const problems = outline(structuredClone(example));
        if (problems.length > 0 && byFull) {
          refused.push(`${tool.name}: ${problems[0]?.path} ${problems[0]?.message}`);
        }
        if (problems.length === 0 && !byFull) lenient++;
      }
    }
    expect(refused).toEqual([]);
    // Not vacuous: most operations with an output schema carry an example, and GitHub's examples
    // often leave out fields the schema calls required, which the outline does not refuse.
    expect(checked).toBeGreaterThan(400);
    expect(lenient).toBeGreaterThan(10);
  });

  it('accept every value the full response schema accepts', { timeout: 300_000 }, () => {
    const rng = random(20261124);
    let accepted = 0;
    const refused: string[] = [];
    for (const { operation, tool } of served) {
      const schema = successMedia(operation)?.schema;
      if (!tool.outputSchema || schema === undefined) continue;
      const { schema: full, validate: before } = fullSchema(schema);
      const after = compileValidator(tool.outputSchema);
      for (const value of sampleArguments(full, 3, rng)) {
        if (before(structuredClone(value)).length > 0) continue;
        accepted++;
        if (after(value).length > 0) refused.push(`${tool.name}: ${JSON.stringify(value).slice(0, 200)}`);
      }
    }
    expect(refused.slice(0, 5)).toEqual([]);
    expect(accepted).toBeGreaterThan(300);
  });

  it('stay within the budget, and keep the top-level properties they have room for', () => {
    let outlined = 0;
    for (const { tool } of served) {
      const schema = tool.outputSchema;
      if (!schema) continue;
      outlined++;
      expect(schema.type).toBe('object');
      expect(schema.$defs).toBeUndefined();
      expect(schema.required).toBeUndefined();
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      expect(JSON.stringify(properties).length).toBeLessThanOrEqual(OUTPUT_BUDGET + 2);
      for (const property of Object.values(properties)) {
        // Types only: nothing nested, nothing that could refuse a new value or format.
        expect(Object.keys(property).every((key) => key === 'type' || key === 'items')).toBe(true);
        if (property.items !== undefined) expect(property.items).toEqual({});
      }
    }
    expect(outlined).toBeGreaterThan(600);
    const repo = served.find(({ operation }) => operation.operationId === 'repos/get')?.tool.outputSchema;
    expect(repo?.properties).toMatchObject({
      id: { type: 'integer' },
      full_name: { type: 'string' },
      owner: { type: 'object' },
      description: { type: ['string', 'null'] },
      fork: { type: 'boolean' },
    });
  });

  it('give links the room left after the other fields, in the order the spec declares them', () => {
    const outline = (id: string) =>
      Object.keys(
        served.find(({ operation }) => operation.operationId === id)?.tool.outputSchema?.properties ?? {},
      );
    // A pull request declares ten `*_url` fields before its number, state and title.
    const pull = outline('pulls/get');
    expect(pull).toEqual(expect.arrayContaining(['number', 'state', 'title', 'user', 'body', 'labels']));
    expect(pull.filter((name) => /_url$|^url$/.test(name))).toEqual([]);
    expect(pull.indexOf('number')).toBeLessThan(pull.indexOf('state'));
    // An object small enough keeps its links too.
    const emoji = outline('reactions/create-for-issue');
    expect(emoji).toEqual(expect.arrayContaining(['id', 'content', 'created_at']));
  });
});
