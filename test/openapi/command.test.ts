import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openapiCommand } from '../../adapters/openapi/index.js';

function fromFlags(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: openapiCommand.options,
    allowPositionals: true,
  });
  return openapiCommand.parseFlags(positionals, values);
}

describe('openapi command', () => {
  it('turns every flag into the same options object the config schema accepts', () => {
    const options = fromFlags([
      'spec.yaml',
      '--base-url',
      'https://api.example.com/v2',
      '--header',
      'X-One: 1',
      '--header',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the adapter expands ${VAR} itself
      'Authorization: Bearer ${TOKEN}',
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
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the adapter expands ${VAR} itself
      headers: { 'X-One': '1', Authorization: 'Bearer ${TOKEN}' },
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
    [['a.yaml', '--base-url', 'not a url'], /--base-url expects an absolute URL/],
    [['a.yaml', '--header', 'no colon'], /--header expects 'Name: value'/],
    [['a.yaml', '--timeout', '0'], /--timeout expects an integer ≥ 1/],
    [['a.yaml', '--retries', 'many'], /--retries expects an integer ≥ 0/],
  ])('%j is refused naming the flag', (args, message) => {
    expect(() => fromFlags(args)).toThrow(message);
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
