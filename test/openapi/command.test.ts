import { parseArgs } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openapiCommand } from '../../adapters/openapi/index.js';
import { shorthandConfig } from '../../src/config/build-sources.js';

function fromFlags(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: openapiCommand.options,
    allowPositionals: true,
  });
  return openapiCommand.parseFlags(positionals, values);
}

// What `bridge openapi …` serves: the flags mapped, then checked by the config schema.
function checked(args: string[]) {
  return shorthandConfig(openapiCommand, fromFlags(args), '/').sources[0]?.options;
}

afterEach(() => {
  delete process.env.OPENAPI_COMMAND_TOKEN;
});

describe('openapi command', () => {
  it('turns every flag into the same options object the config schema accepts', () => {
    process.env.OPENAPI_COMMAND_TOKEN = 'tok-1';
    const options = fromFlags([
      'spec.yaml',
      '--base-url',
      'https://api.example.com/v2',
      '--header',
      'X-One: 1',
      '--header',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the flag's parsing expands ${VAR}
      'Authorization: Bearer ${OPENAPI_COMMAND_TOKEN}',
      '--validate',
      '--allow-remote-refs',
      '--tools',
      'dynamic',
      '--include',
      'tag:pets',
      '--exclude',
      'method:DELETE',
      '--timeout',
      '5000',
      '--retries',
      '0',
      '--relax-output',
      '--forward-auth',
      '--no-cache',
    ]);
    expect(options).toEqual({
      spec: 'spec.yaml',
      baseUrl: 'https://api.example.com/v2',
      headers: { 'X-One': '1', Authorization: 'Bearer tok-1' },
      validate: true,
      allowRemoteRefs: true,
      tools: 'dynamic',
      include: ['tag:pets'],
      exclude: ['method:DELETE'],
      timeoutMs: 5000,
      retries: 0,
      relaxOutput: true,
      forwardAuth: true,
      cache: false,
    });
    expect(openapiCommand.configSchema.parse(options)).toEqual(options);
    expect(fromFlags(['spec.json'])).toEqual({ spec: 'spec.json' });
  });

  it.each([
    [[], /needs the spec/],
    [['a.yaml', 'b.yaml'], /takes one spec, got 2/],
    [['a.yaml', '--base-url', 'not a url'], '--base-url must be an absolute URL (got "not a url")'],
    [['a.yaml', '--header', 'no colon'], `--header expects 'Name: value', got "no colon"`],
    [['a.yaml', '--timeout', '0'], '--timeout must be at least 1 (got 0)'],
    [['a.yaml', '--retries', 'many'], '--retries expects an integer, got "many"'],
    [['a.yaml', '--retries', '50'], '--retries must be at most 10 (got 50)'],
    [['a.yaml', '--tools', 'some'], '--tools must be one of all, dynamic, auto (got "some")'],
    [
      ['a.yaml', '--auth-scheme', ''],
      `--auth-scheme needs the name of one of the spec's security schemes, got ""`,
    ],
  ])('%j is refused naming the flag', (args, message) => {
    expect(() => checked(args)).toThrow(message);
  });

  it('rejects unknown keys and wrong types in a config entry', () => {
    expect(openapiCommand.configSchema.safeParse({ spec: 'a.yaml', tool: 'all' }).success).toBe(false);
    expect(openapiCommand.configSchema.safeParse({ spec: 'a.yaml', tools: 'some' }).success).toBe(false);
    expect(openapiCommand.configSchema.safeParse({ spec: 'a.yaml', retries: -1 }).success).toBe(false);
  });

  it('documents every flag in its usage', () => {
    for (const flag of Object.keys(openapiCommand.options))
      expect(openapiCommand.usage).toContain(`--${flag}`);
  });
});
