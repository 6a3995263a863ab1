import { describe, expect, it } from 'vitest';
import { cliCommand } from '../../adapters/cli/index.js';
import { shorthandConfig } from '../../src/config/build-sources.js';

describe('bridge cli flags and config', () => {
  it('turns flags into the same options object the config schema accepts', () => {
    const options = cliCommand.parseFlags(['git'], {
      allow: ['log,show', 'config view'],
      deny: ['push'],
      root: ['a', 'b'],
      timeout: '5000',
      'allow-option': ['exec'],
      'no-cache': true,
      'page-size': '4000',
      overlay: 'mine.yaml',
      'probe-timeout': '800',
    });
    expect(options).toEqual({
      program: 'git',
      allow: ['log', 'show', 'config view'],
      deny: ['push'],
      roots: ['a', 'b'],
      timeoutMs: 5000,
      allowOptions: ['exec'],
      cache: false,
      pageSize: 4000,
      overlay: 'mine.yaml',
      probeTimeoutMs: 800,
    });
    expect(cliCommand.configSchema.parse(options)).toEqual(options);
  });

  it('names the flag and what it expects when a value is wrong', () => {
    expect(() => cliCommand.parseFlags([], {})).toThrow(/needs a program/);
    expect(() => cliCommand.parseFlags(['git', 'extra'], {})).toThrow(/one program/);
    expect(() => cliCommand.parseFlags(['git'], { timeout: 'soon' })).toThrow(/--timeout expects an integer/);
    // Ranges are the config schema's: the same check for a flag and for a config file.
    const options = cliCommand.parseFlags(['git'], { 'page-size': '10' });
    expect(() => shorthandConfig(cliCommand, options, '/')).toThrow(
      '--page-size must be at least 1000 (got 10)',
    );
    expect(cliCommand.configSchema.safeParse({ program: 'git', timeout: 5 }).success).toBe(false);
  });

  it('documents every flag in its usage', () => {
    for (const flag of Object.keys(cliCommand.options)) expect(cliCommand.usage).toContain(`--${flag}`);
  });
});
