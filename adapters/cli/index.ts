import type { AdapterCommand } from '../../src/index.js';
import { createCliSource } from './create-cli-source.js';
import {
  type CliOptions,
  cliConfigSchema,
  cliFlagNames,
  cliFlags,
  cliUsage,
  parseCliFlags,
} from './options.js';

export { createCliSource } from './create-cli-source.js';
export type { CliOptions } from './options.js';

/** `bridge cli <program>`: a command-line program as typed, safe, annotated tools. */
export const cliCommand: AdapterCommand<CliOptions> = {
  name: 'cli',
  summary: 'serve a command-line program (git, kubectl, any --help) as one tool per subcommand',
  usage: cliUsage,
  options: cliFlags,
  parseFlags: parseCliFlags,
  flagNames: cliFlagNames,
  configSchema: cliConfigSchema,
  createSource: createCliSource,
};
