// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are the config's literal ${VAR} syntax
import { describe, expect, it } from 'vitest';
import { decorateSource, globToRegExp } from '../../src/config/decorate-source.js';
import {
  type ConfigProblem,
  findInlineSecrets,
  resolveEnvReferences,
} from '../../src/config/env-references.js';
import { silentLogger } from '../../src/logger.js';
import { MemoryResourceStore } from '../../src/resource-store.js';
import type { Source } from '../../src/source.js';
import type { ToolContext, ToolDefinition } from '../../src/tool.js';

const tool = (name: string, invoke?: ToolDefinition['invoke']): ToolDefinition => ({
  name,
  description: `${name} does things.`,
  inputSchema: { type: 'object' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  invoke: invoke ?? (async () => ({ content: [{ type: 'text', text: name }] })),
});

const source = (tools: ToolDefinition[]): Source => ({
  label: 'test',
  load: async () => tools,
  watchedFiles: () => ['/spec.yaml'],
});

const context = (signal = new AbortController().signal): ToolContext => ({
  signal,
  progress() {},
  log: silentLogger,
  resources: new MemoryResourceStore(),
  caller: 'test',
});

const load = (decorated: Source) =>
  decorated.load({ log: silentLogger, signal: new AbortController().signal });

describe('source decorators', () => {
  it('filters by globs on the adapter names, then adds the namespace', async () => {
    const decorated = decorateSource(source(['list_a', 'list_b', 'get_a', 'delete_a'].map((n) => tool(n))), {
      namespace: 'x',
      include: ['list_*', 'get_?'],
      exclude: ['*_b'],
    });
    expect((await load(decorated)).map((t) => t.name)).toEqual(['x_list_a', 'x_get_a']);
    expect(decorated.watchedFiles?.()).toEqual(['/spec.yaml']);
  });

  it('applies overrides: exact name, title, description, merged annotations, task support', async () => {
    const [renamed, other] = await load(
      decorateSource(source([tool('a'), tool('b')]), {
        namespace: 'x',
        tools: {
          a: {
            name: 'alpha',
            title: 'Alpha',
            description: 'Better words.',
            annotations: { readOnlyHint: false, destructiveHint: true },
            taskSupport: 'optional',
          },
        },
      }),
    );
    expect(renamed).toMatchObject({
      name: 'alpha',
      title: 'Alpha',
      description: 'Better words.',
      taskSupport: 'optional',
    });
    expect(renamed?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(other?.name).toBe('x_b');
  });

  it('times a call out at timeoutMs even when the tool ignores its signal, and aborts the signal', async () => {
    let seen: AbortSignal | undefined;
    const stuck = tool('stuck', (_args, ctx) => {
      seen = ctx.signal;
      return new Promise(() => {});
    });
    const [wrapped] = await load(decorateSource(source([stuck]), { tools: { stuck: { timeoutMs: 50 } } }));
    await expect(wrapped!.invoke({}, context())).rejects.toThrow(/timed out after 50 ms/);
    expect(seen?.aborted).toBe(true);
  });

  it('passes the client cancellation through a timeout wrapper', async () => {
    const waits = tool(
      'waits',
      (_args, ctx) =>
        new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        ),
    );
    const [wrapped] = await load(
      decorateSource(source([waits]), { tools: { waits: { timeoutMs: 10_000 } } }),
    );
    const cancel = new AbortController();
    const call = wrapped!.invoke({}, context(cancel.signal));
    cancel.abort(new Error('cancelled by the client'));
    await expect(call).rejects.toThrow('cancelled by the client');
  });

  it('matches globs literally apart from * and ?', () => {
    expect(globToRegExp('repos.get*').test('repos.get_by_id')).toBe(true);
    expect(globToRegExp('repos.get*').test('reposXget')).toBe(false);
    expect(globToRegExp('a?c').test('abc')).toBe(true);
  });
});

describe('secrets as environment references', () => {
  it('refuses credentials written inline in headers and auth, not references or variable names', () => {
    const problems = findInlineSecrets(
      {
        headers: { Authorization: 'token abc', 'X-Api-Key': '${KEY}', Accept: 'application/json' },
        auth: { type: 'bearer', token: 'xyz', tokenEnv: 'MY_TOKEN', tokenUrl: 'https://id.example/token' },
        password: 'hunter2',
      },
      ['sources', 0, 'options'],
      'gh',
    );
    expect(problems.map((problem) => problem.path.join('.'))).toEqual([
      'sources.0.options.headers.Authorization',
      'sources.0.options.auth.token',
      'sources.0.options.password',
    ]);
    expect(problems[0]?.fix).toContain('"token ${GH_TOKEN}"');
  });

  it('finds a secret header whatever else its name says, and an escaped reference is no reference', () => {
    const problems = findInlineSecrets(
      {
        headers: {
          'X-Environment-Token': 'abc123',
          'X-Api-Key-Var': 'abc123',
          'X-Auth': '$${LITERAL}abc123',
          'X-Token': 'Bearer ${TOKEN}',
        },
        auth: { type: 'bearer', tokenEnv: 'MY_TOKEN' },
      },
      ['sources', 0, 'options'],
      'api',
    );
    expect(problems.map((problem) => problem.path.join('.'))).toEqual([
      'sources.0.options.headers.X-Environment-Token',
      'sources.0.options.headers.X-Api-Key-Var',
      'sources.0.options.headers.X-Auth',
    ]);
  });

  it('resolves ${VAR}, keeps $${ literal, and reports unset variables by path', () => {
    const problems: ConfigProblem[] = [];
    const resolved = resolveEnvReferences(
      { url: 'https://${HOST}/v1', list: ['$${HOST}', '${NOPE}'] },
      ['options'],
      { HOST: 'api.example.com' },
      problems,
    );
    expect(resolved).toEqual({ url: 'https://api.example.com/v1', list: ['${HOST}', ''] });
    expect(problems).toEqual([
      expect.objectContaining({
        path: ['options', 'list', 1],
        message: 'the environment variable NOPE is not set',
      }),
    ]);
  });
});
