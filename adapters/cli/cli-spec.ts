import type { ToolAnnotations } from '../../src/index.js';

/** How an option takes its value. */
export type OptionKind = 'boolean' | 'string' | 'integer' | 'number' | 'enum';

/**
 * A value that names a file or directory, confined to the roots: `path` is always local;
 * `location` may also be a URL, of which `file://` URLs are local too (git's repositories and remotes).
 */
export type PathKind = 'path' | 'location';

/** One option of a subcommand, as discovered from the binary or curated in an overlay. */
export interface OptionSpec {
  /** The property name in the input schema: the long name without dashes (`max-count`), or the short letter. */
  name: string;
  /** How it is spelled on the command line: `--max-count` or `-n`. */
  flag: string;
  kind: OptionKind;
  /** Allowed values of an `enum` option. */
  values?: string[];
  /** Passed once per array item (`-e a -e b`). */
  repeatable?: boolean;
  /** The value may be left out (`--color[=WHEN]`): an empty string passes the bare flag. */
  optionalValue?: boolean;
  /** A boolean that `false` spells as `--no-<name>` (git's `--[no-]foo`). */
  negatable?: boolean;
  /** How `false` is spelled for a boolean that defaults to true and has no `--no-` form (pflag: `--flag=false`). */
  offFlag?: string;
  /** A single-dash long option whose help writes its value after `=` (`-chdir=DIR`): passed so. */
  joined?: true;
  /** The option takes two values (`--arg NAME VALUE`): offered as a pair of strings. */
  valueCount?: 2;
  description?: string;
  /** The value placeholder of the help text (`<file>`, `FILE`, `string`), read by the path inference. */
  placeholder?: string;
  /** The value names a file or directory (`false`: known not to, whatever inference would say). */
  path?: PathKind | false;
  /**
   * A regular expression every value must match (an overlay's): for a value the program reads as
   * more than it looks (OpenSSL's `-newkey rsa:2048`, which also takes `param:FILE`, a file read
   * wherever it is).
   */
  pattern?: string;
}

/** Where a positional argument goes on the command line. */
export type PositionalPlacement =
  /** After the options (and after `--end-of-options` where the CLI has it): refs, names, URLs. */
  | 'operand'
  /** After `--`: paths and pathspecs. */
  | 'path';

/** A positional argument of a subcommand, offered as an array of strings. */
export interface PositionalSpec {
  name: string;
  description: string;
  placement: PositionalPlacement;
  required?: boolean;
  /** The most values it takes (an overlay's): sqlite3 opens one database, the rest is SQL. */
  maxItems?: number;
  /** The values name files or directories (`false`: known not to, e.g. git grep's pattern). */
  path?: PathKind | false;
  /**
   * A regular expression every value must match (an overlay's): for operands the program reads as
   * more than they look (npm view's package, which may also be a path, a tarball or a git URL).
   */
  pattern?: string;
}

/** One subcommand, which becomes one tool. */
export interface CommandSpec {
  /** The words after the program name: `['cherry-pick']`, `['config', 'view']`. Empty for the program itself. */
  path: string[];
  /**
   * The words run after the program when they differ from `path`: a mode of a multi-mode command
   * (path `['branch', 'delete']`, tool `git_branch_delete`) runs `['branch', '--delete']`.
   */
  run?: string[];
  description: string;
  options: OptionSpec[];
  positionals: PositionalSpec[];
  /** The usage line(s) of the help text, read by the path inference (`cp SOURCE DEST`). */
  usage?: string;
  /** Whether the tool takes a `stdin` string argument fed to the process. */
  stdin?: boolean;
  /** Overlay-curated hints; whatever is missing is inferred. */
  annotations?: Partial<ToolAnnotations>;
  /** The command can run for a long time (network, whole-history walks): offered as a task. */
  longRunning?: boolean;
  /** Overrides the CLI's end-of-options marker for this command (`null`: none). */
  endOfOptions?: '--end-of-options' | '--' | null;
  /** Environment added when this command runs, over the overlay's program-wide `env`. */
  env?: Record<string, string>;
}

/** Which discovery produced a spec. */
export type CliFlavor = 'git' | 'cobra' | 'generic';

/** Everything discovered about a program: cached as JSON between runs. */
export interface CliSpec {
  program: string;
  /** Absolute path of the binary that was examined. */
  binary: string;
  /** The first line of `--version`, part of the cache key. */
  version: string;
  flavor: CliFlavor;
  /**
   * How the CLI marks the end of options before operands: git's `--end-of-options`, `--` for
   * getopt/Cobra CLIs, or nothing (operands starting with `-` are refused in every case).
   */
  endOfOptions: '--end-of-options' | '--' | null;
  /**
   * How a long option's value is passed: `--name=value` (one element, getopt, Cobra, argparse), or
   * `next`, `--name value`, for a CLI that reads no `=` (curl), which takes the next element as
   * the value whatever it is.
   */
  longValues?: 'next';
  commands: CommandSpec[];
  /** Subcommands skipped during discovery, with the reason (logged as warnings; `quiet` ones at debug level). */
  skipped: Array<{ path: string[]; reason: string; quiet?: boolean }>;
}
