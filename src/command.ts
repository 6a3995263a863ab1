import type { ParseArgsConfig } from 'node:util';
import type { z } from 'zod';
import type { Source } from './source.js';

/** Flag values as `node:util` `parseArgs` returns them. */
export type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * How an adapter plugs into the command line (`bridge <name> <positionals> [flags]`) and into the
 * config file (a source entry with `kind: <name>`). Both paths produce the same `Options` object
 * and build the source with `createSource`, so a shorthand command and a one-source config behave
 * identically. Each adapter exports one; the command-line entry is the only place that lists them.
 */
export interface AdapterCommand<Options = unknown> {
  /** The subcommand and config `kind`, e.g. `openapi`. */
  name: string;
  /** One line for `bridge --help`. */
  summary: string;
  /** The full help text of the subcommand: positionals and every adapter flag. */
  usage: string;
  /** The adapter's own flags, in `parseArgs` form. */
  options: NonNullable<ParseArgsConfig['options']>;
  /**
   * Turns positionals and flags into options: it only maps each flag to its field (with the core's
   * flag helpers, `stringFlag`, `integerFlag`…), throwing an `invalid_input` `BridgeError` naming
   * the flag when a value cannot be read at all. What values are allowed is `configSchema`'s to
   * check, the one validation flags and config files share.
   */
  parseFlags(positionals: string[], values: FlagValues): Options;
  /**
   * The flag that sets each option field (`{ timeoutMs: '--timeout' }`), so that a value the
   * config schema refuses is reported by the flag the user typed. Fields not listed are named as is.
   */
  flagNames?: Record<string, string>;
  /**
   * The options as written in a config file (YAML/JSON), validated with zod. The same shape
   * `parseFlags` returns; relative paths in it are resolved against `baseDir` by `createSource`.
   * Secrets are never inline: they are names of environment variables.
   */
  configSchema: z.ZodType<Options>;
  /**
   * Builds the source. `baseDir` is the directory relative paths are resolved against (the
   * config file's directory, or the working directory for flags). `${VAR}` references in the
   * options are already resolved (by the config's loading, or by `headerFlags`): use the values as
   * they are, never expand them again.
   */
  createSource(options: Options, baseDir: string): Source;
}
