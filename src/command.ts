import type { ParseArgsConfig } from 'node:util';
import type { Source } from './source.js';

/** Flag values as `node:util` `parseArgs` returns them. */
export type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * How an adapter appears on the command line: `bridge <name> <positionals> [flags]`. Each adapter
 * exports one; the command-line entry lists them and owns the flags common to all (transport,
 * logging).
 */
export interface AdapterCommand {
  /** The subcommand, e.g. `openapi`. */
  name: string;
  /** One line for `bridge --help`. */
  summary: string;
  /** The full help text of the subcommand: positionals and every adapter flag. */
  usage: string;
  /** The adapter's own flags, in `parseArgs` form. */
  options: NonNullable<ParseArgsConfig['options']>;
  /**
   * Builds the source from the positionals and flags. Throws a `BridgeError` with code
   * `invalid_input` for wrong flags, naming the flag and what it expects.
   */
  createSource(positionals: string[], values: FlagValues): Source;
}
