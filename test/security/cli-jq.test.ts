// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config's and headers' literal ${VAR} syntax
// `bridge cli jq` with its bundled overlay, on the machine's real jq (1.6 on Debian 12): it works
// (jq 1.6 refuses a `--` before the filter), and what a caller sends cannot read outside the roots
// or the bridge's own secrets: files outside them, the file-reading options, module imports, the
// bridge's credentials in the environment.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandEnvironment } from '../../src/index.js';
import { type LoadedCli, loadCli, tempDir, textOf } from '../cli/helpers.js';

const cache = tempDir('bridge-cli-cache-');
const work = tempDir('bridge-jq-');
const root = join(work.path, 'root');
const previous = { cache: process.env.BRIDGE_CACHE_DIR, token: process.env.BRIDGE_SOMEAPI_TOKEN };
let cli: LoadedCli;

beforeAll(async () => {
  process.env.BRIDGE_CACHE_DIR = cache.path;
  process.env.BRIDGE_SOMEAPI_TOKEN = 'not-for-callers-0123456789';
  mkdirSync(root);
  writeFileSync(join(root, 'in.json'), '{"name": "inside"}');
  // Beside the root, where only a way around the roots reaches.
  writeFileSync(join(work.path, 'secret.json'), '{"secret": "OUTSIDE-SECRET-7f3a"}');
  cli = await loadCli({ program: 'jq', roots: [root] }, root);
});

afterAll(async () => {
  await cli?.[Symbol.asyncDispose]();
  for (const [name, value] of [
    ['BRIDGE_CACHE_DIR', previous.cache],
    ['BRIDGE_SOMEAPI_TOKEN', previous.token],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  cache[Symbol.dispose]();
  work[Symbol.dispose]();
});

describe('bridge cli jq', () => {
  it('runs a filter over stdin and over a file inside the roots', async () => {
    const overStdin = await cli.call('jq', { filter: '.a + 1', stdin: '{"a": 41}', c: true });
    expect(overStdin.structuredContent?.stdout, textOf(overStdin)).toBe('42\n');
    const overFile = await cli.call('jq', { filter: '.name', files: ['in.json'] });
    expect(overFile.structuredContent?.stdout, textOf(overFile)).toBe('"inside"\n');
    const slurped = await cli.call('jq', { filter: '$x[0].name', n: true, slurpfile: ['x', 'in.json'] });
    expect(slurped.structuredContent?.stdout, textOf(slurped)).toBe('"inside"\n');
    const tool = cli.registry.get('jq')?.definition;
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
  });

  it.each([
    ['a file outside the roots', { filter: '.', files: ['/etc/passwd'] }],
    ['a relative path out of them', { filter: '.', files: ['../secret.json'] }],
    ['a module import by a relative path', { filter: 'import "../secret" as $s; $s', n: true }],
    ['an include', { filter: 'include "../x"; .', n: true }],
    ['a module loaded by name (modulemeta)', { filter: '"../x" | modulemeta', n: true }],
    ['an import behind a comment', { filter: 'import # c\n"../secret" as $s; $s', n: true }],
    ['an import of a formatted string', { filter: 'import @text "../secret" as $s; $s', n: true }],
    ['--rawfile', { filter: '$x', n: true, rawfile: ['x', '/etc/passwd'] }],
    ['--slurpfile', { filter: '$x', n: true, slurpfile: ['x', '../secret.json'] }],
  ])('refuses %s, and nothing outside is read', async (_label, args) => {
    const result = await cli.call('jq', args);
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).not.toContain('root:x:0:0');
    expect(text).not.toContain('OUTSIDE-SECRET-7f3a');
    // Refused by the bridge, not by jq: jq never ran.
    expect(result.structuredContent?.exitCode).toBeUndefined();
  });

  it("never hands the bridge's own credentials to jq ($ENV, env)", async () => {
    const result = await cli.call('jq', {
      filter: '[$ENV.BRIDGE_SOMEAPI_TOKEN, env.BRIDGE_SOMEAPI_TOKEN]',
      n: true,
      c: true,
    });
    expect(result.structuredContent?.stdout, textOf(result)).toBe('[null,null]\n');
    const home = await cli.call('jq', { filter: '$ENV.PATH != null', n: true });
    expect(home.structuredContent?.stdout).toBe('true\n');
  });
});

describe('variables a config or a header names for a credential', () => {
  const set = {
    CONFIG_TOKEN: 'config-secret-4b1d',
    HEADER_KEY: 'header-secret-9c2e',
    STORE_PASS: 's',
    SPEC_FILE: 'api.yaml',
  };
  beforeAll(() => {
    Object.assign(process.env, set);
  });
  afterAll(() => {
    for (const name of Object.keys(set)) delete process.env[name];
  });

  it('never reach jq, while a variable used elsewhere in the config does', async () => {
    const { validateConfig } = await import('../../src/config/load-config.js');
    const { expandHeaders } = await import('../../src/expand-headers.js');
    await validateConfig(
      {
        server: { store: 'redis://:${STORE_PASS}@127.0.0.1:6379' },
        sources: [
          {
            kind: 'openapi',
            options: { spec: '${SPEC_FILE}', headers: { Authorization: 'Bearer ${CONFIG_TOKEN}' } },
          },
        ],
      },
      {
        file: 'bridge.config.yaml',
        path: join(work.path, 'bridge.config.yaml'),
        env: process.env,
        adapters: { openapi: () => import('../../adapters/openapi/index.js').then((m) => m.openapiCommand) },
      },
    );
    expandHeaders({ 'X-Api-Key': '${HEADER_KEY}' });
    const result = await cli.call('jq', {
      filter: '[$ENV.CONFIG_TOKEN, $ENV.HEADER_KEY, $ENV.STORE_PASS, $ENV.SPEC_FILE]',
      n: true,
      c: true,
    });
    expect(result.structuredContent?.stdout, textOf(result)).toBe('[null,null,null,"api.yaml"]\n');
  });
});

describe('the environment of the commands the bridge runs', () => {
  it('leaves out BRIDGE_* and the variable named by --auth-tokens-env', async () => {
    const { loadStaticTokens } = await import('../../src/auth/static-tokens.js');
    loadStaticTokens(
      { env: 'CALLER_TOKENS' },
      { CALLER_TOKENS: 'a-token-of-32-characters-or-more-1234 alice' },
      '/',
    );
    expect(
      commandEnvironment({
        HOME: '/home/u',
        BRIDGE_X_TOKEN: 't',
        BRIDGE_STORE_PASSWORD: 'p',
        CALLER_TOKENS: 'x',
      }),
    ).toEqual({ HOME: '/home/u' });
  });
});
