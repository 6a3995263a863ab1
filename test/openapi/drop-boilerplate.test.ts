import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  BOILERPLATE_OPERATIONS,
  dropBoilerplate,
  dropRepeatedSentences,
  repeatedParameterSentences,
  repeatedSentences,
} from '../../adapters/openapi/drop-boilerplate.js';
import type { OperationInfo } from '../../adapters/openapi/list-operations.js';
import { listOperations } from '../../adapters/openapi/list-operations.js';

const SCOPE =
  'OAuth app tokens and personal access tokens (classic) need the `repo` scope to use this endpoint.';

function operations(descriptions: string[]): OperationInfo[] {
  return descriptions.map((description, i) => ({
    method: 'get',
    path: `/items/${i}`,
    tags: [],
    description,
    deprecated: false,
    operation: {},
    pathParameters: [],
  }));
}

describe('boilerplate in tool descriptions', () => {
  it('drops the custom media types note and its list: the caller cannot choose the Accept header', () => {
    const text = [
      'Gets a pull request.',
      '',
      'This endpoint supports the following custom media types. For more information, see "[Media types](https://docs.github.com/rest)."',
      '',
      '- **`application/vnd.github.raw+json`**: Returns the raw markdown body. This is the default.',
      '- **`application/vnd.github.html+json`**: Returns HTML rendered from the body.',
      '',
      'Pass `state` to filter.',
    ].join('\n');
    expect(dropBoilerplate(text, new Set(), [])).toBe('Gets a pull request.\n\nPass `state` to filter.');
    // Also when the note is not a paragraph of its own.
    const inline =
      'Removes a sub-issue.\nThis endpoint supports the following custom media types.\n- **`application/vnd.github.raw+json`**: Raw.';
    expect(dropBoilerplate(inline, new Set(), [])).toBe('Removes a sub-issue.');
    // Media types named in other prose stay.
    const other = 'Returns `application/json` unless the file is binary.';
    expect(dropBoilerplate(other, new Set(), [])).toBe(other);
  });

  it('finds whole sentences repeated across many operations, and drops them', () => {
    const many = Array.from(
      { length: BOILERPLATE_OPERATIONS },
      (_, i) => `Lists the items of shelf ${i}.\n\n${SCOPE}`,
    );
    const repeated = repeatedSentences(operations(many));
    // The sentence, and its shape with other scopes (see the credentials test below).
    expect(repeated.has(SCOPE)).toBe(true);
    expect(repeated.size).toBe(2);
    expect(dropBoilerplate(many[3] as string, repeated, [])).toBe('Lists the items of shelf 3.');
    // One operation fewer: not boilerplate.
    expect(repeatedSentences(operations(many.slice(1))).size).toBe(0);
  });

  it('keeps a repeated sentence that names an argument, or says what a call does or how fast it may run', () => {
    const names = 'Use the `per_page` argument to get up to 100 results at once, not more.';
    const notify = 'This endpoint triggers notifications for everyone watching the repository.';
    const rate = 'Creating content too quickly using this endpoint may result in secondary rate limiting.';
    const texts = Array.from(
      { length: 12 },
      (_, i) => `Item ${i} of the list.\n\n${names} ${notify} ${rate}`,
    );
    const repeated = repeatedSentences(operations(texts));
    expect(repeated.has(names)).toBe(true);
    expect(repeated.has(notify) || repeated.has(rate)).toBe(false);
    expect(dropBoilerplate(texts[0] as string, repeated, ['per_page'])).toBe(texts[0]);
    expect(dropBoilerplate(texts[0] as string, repeated, ['page'])).toBe(
      `Item 0 of the list.\n\n${notify} ${rate}`,
    );
  });

  it('drops a credentials note even where a scope shares its name with an argument', () => {
    const texts = Array.from({ length: 12 }, (_, i) => `Deletes workflow run ${i}.\n\n${SCOPE}`);
    const repeated = repeatedSentences(operations(texts));
    expect(dropBoilerplate(texts[0] as string, repeated, ['owner', 'repo', 'run_id'])).toBe(
      'Deletes workflow run 0.',
    );
  });

  it('drops a credentials note repeated with other scopes in backticks; other such sentences stay', () => {
    const scopes = ['admin:org', 'codespace', 'user', 'security_events', 'read:packages', 'workflow'];
    const note = (scope: string) =>
      `OAuth app tokens and personal access tokens (classic) need the \`${scope}\` scope to use this endpoint.`;
    const how = (name: string) => `Pass the \`${name}\` value you got from the previous page of results.`;
    const texts = Array.from(
      { length: 12 },
      (_, i) => `Reads thing ${i}.\n\n${note(scopes[i % scopes.length] as string)} ${how(`arg_${i}`)}`,
    );
    const repeated = repeatedSentences(operations(texts));
    // No one sentence recurs 10 times: only the credentials shape does.
    expect([...repeated].some((sentence) => sentence.startsWith('OAuth'))).toBe(true);
    expect(dropBoilerplate(texts[1] as string, repeated, ['owner'])).toBe(
      `Reads thing 1.\n\n${how('arg_1')}`,
    );
    // With another scope, in an operation not counted: the same shape, dropped.
    expect(dropBoilerplate(`Deletes it. ${note('delete:packages')}`, repeated, [])).toBe('Deletes it.');
    // Worded otherwise: kept.
    const other = 'Fine-grained tokens need the `contents` permission set to `write` for this endpoint.';
    expect(dropBoilerplate(`Deletes it. ${other}`, repeated, [])).toBe(`Deletes it. ${other}`);
    // Below the threshold, even the shape is not boilerplate.
    expect(repeatedSentences(operations(texts.slice(0, BOILERPLATE_OPERATIONS - 1))).size).toBe(0);
  });

  it('never takes a piece of a sentence that a line break split', () => {
    // GitHub wraps some descriptions: "…encrypted with\n[LibSodium](…)." must not lose its end.
    const texts = Array.from(
      { length: 12 },
      (_, i) => `Creates secret ${i}, encrypted with\n[LibSodium](https://libsodium.example/doc/bindings).`,
    );
    expect(repeatedSentences(operations(texts)).size).toBe(0);
  });

  it("drops GitHub's scope notes and media type lists, and keeps what says how to call", () => {
    const spec = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
    const ops = listOperations(JSON.parse(readFileSync(spec, 'utf8')), 'openapi30');
    const repeated = repeatedSentences(ops);
    expect(repeated.has(SCOPE)).toBe(true);
    const pull = ops.find((op) => op.operationId === 'pulls/create') as OperationInfo;
    const text = dropBoilerplate(pull.description as string, repeated, ['owner', 'repo', 'head', 'base']);
    expect(text).not.toMatch(/media type|application\/vnd|scope/);
    expect(text).toContain('you must have write access to the head or the source branch');
    expect(text).toContain('This endpoint triggers');
  });
});

describe('boilerplate in parameter descriptions', () => {
  const CASE = 'The name is not case sensitive.';
  // One operation per entry, each with the parameter descriptions given.
  const withParameters = (lists: string[][]) => {
    const ops = operations(lists.map((_, i) => `Operation ${i}.`));
    const byOperation = new Map(ops.map((op, i) => [op, lists[i] as string[]]));
    return { ops, parametersOf: (op: OperationInfo) => byOperation.get(op) ?? [] };
  };

  it('finds a sentence recurring in the parameters of many operations, and drops it after the first', () => {
    const lists = Array.from({ length: BOILERPLATE_OPERATIONS }, (_, i) => [
      `The account owner of repository ${i}. ${CASE}`,
      `The name of repository ${i}. ${CASE}`,
    ]);
    const { ops, parametersOf } = withParameters(lists);
    const repeated = repeatedParameterSentences(ops, parametersOf);
    expect([...repeated]).toEqual([CASE]);
    expect(dropRepeatedSentences(`The account owner of the repository. ${CASE}`, repeated)).toBe(
      'The account owner of the repository.',
    );
    // Two parameters of one operation count once: one operation fewer is not boilerplate.
    const fewer = withParameters(lists.slice(1));
    expect(repeatedParameterSentences(fewer.ops, fewer.parametersOf).size).toBe(0);
  });

  it('never drops a first sentence, so a description is never left empty', () => {
    const lists = Array.from({ length: 12 }, (_, i) => [`Repository ${i} by its owner. ${CASE}`, CASE]);
    const { ops, parametersOf } = withParameters(lists);
    const repeated = repeatedParameterSentences(ops, parametersOf);
    expect(repeated.has(CASE)).toBe(true);
    expect(dropRepeatedSentences(CASE, repeated)).toBe(CASE);
    expect(dropRepeatedSentences(`${CASE}\n\n${CASE} More.`, repeated)).toBe(`${CASE}\n\nMore.`);
    // A text's first sentence is never counted either: alone at the start of every one, it stays.
    const firsts = withParameters(Array.from({ length: 12 }, () => [`${CASE} Repository.`]));
    expect(repeatedParameterSentences(firsts.ops, firsts.parametersOf).size).toBe(0);
  });

  it('keeps a sentence with a value in backticks, or about what a call does or how fast', () => {
    const format = 'This is a timestamp in ISO 8601 format: `YYYY-MM-DDTHH:MM:SSZ`.';
    const value = "Packages in GitHub's Gradle registry have the type `maven`.";
    const rate = 'Asking for more than 100 at once counts against your rate limit twice.';
    const lists = Array.from({ length: 12 }, (_, i) => [
      `Only results after time ${i}. ${format} ${value} ${rate}`,
    ]);
    const { ops, parametersOf } = withParameters(lists);
    expect(repeatedParameterSentences(ops, parametersOf).size).toBe(0);
  });

  it("drops GitHub's case note from owner, org and repo, and keeps their first sentence", () => {
    const spec = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
    const document = JSON.parse(readFileSync(spec, 'utf8'));
    const ops = listOperations(document, 'openapi30');
    const parameters = document.components.parameters;
    const descriptions = (op: OperationInfo) =>
      [...op.pathParameters, ...((op.operation.parameters as unknown[]) ?? [])].map((raw) => {
        const ref = (raw as { $ref?: string }).$ref;
        const parameter = ref ? parameters[ref.split('/').at(-1) as string] : raw;
        return (parameter as { description?: string }).description;
      });
    const repeated = repeatedParameterSentences(ops, descriptions);
    expect(repeated.has(CASE)).toBe(true);
    expect([...repeated].some((sentence) => sentence.includes('`'))).toBe(false);
    expect(dropRepeatedSentences(parameters.owner.description, repeated)).toBe(
      'The account owner of the repository.',
    );
    expect(dropRepeatedSentences(parameters.since.description, repeated)).toContain('ISO 8601');
  });
});
