import type { CliFlavor, CommandSpec, OptionSpec, PathKind, PositionalSpec } from './cli-spec.js';

/** What the inference knows besides the commands: the overlay's lists of path-valued options. */
export interface PathHints {
  flavor: CliFlavor;
  /** Long option names (no dashes) whose value is a local file or directory in every command. */
  pathOptions?: readonly string[];
  /** Long option names whose value is a repository or URL, local when a path or `file://`. */
  locationOptions?: readonly string[];
}

// Placeholders of help texts that name a file or directory: `<file>`, `FILE`, `<template-directory>`,
// `<gitdir>`, `=PATH`, `<repo>` (git's local-or-remote repository).
const PATH_PLACEHOLDER =
  /^(file|files|filename|filenames|path|paths|pathname|dir|dirs|directory|folder|gitdir|git-dir|src|source|dest|destination|target|archive|[\w-]+-(file|dir|directory|path))$/i;
const LOCATION_PLACEHOLDER = /^(repo|repository|url|remote|location|[\w-]+-(repo|repository|url))$/i;

// Option names that take a file or directory in the CLIs met in practice (`--output`, `--kubeconfig`,
// `--ignore-revs-file`, `--exclude-from`, `--export-marks`).
const PATH_NAME =
  /^(file|filename|path|dir|directory|folder|output|out|dest|destination|template|contents|kubeconfig|config|cwd|chdir|root|workdir|work-tree|git-dir|[\w-]+[-_](file|filename|files|path|dir|directory|folder|from|marks|output|root))$/i;
const LOCATION_NAME = /^(reference|reference-if-able|repo|repository|bundle-uri|remote|url)$/i;

// Descriptions that say the value is a file or directory: "Path to the kubeconfig file", "read message from file".
const PATH_WORDS = /\b(path to|path of|file|filename|directory|folder)\b/i;

/**
 * Marks the options and positionals whose values name files or directories, so that
 * `confinePaths` checks them against the roots. Curated marks (the overlay's `path`, `false`
 * included) win; the rest is inferred from the option's name, its placeholder and its description,
 * and, for operands, from the usage line. A wrong guess costs little: a relative value without `..`
 * stays inside the working directory, so only absolute or escaping values are refused.
 */
export function inferPaths(commands: CommandSpec[], hints: PathHints): CommandSpec[] {
  const pathOptions = new Set(hints.pathOptions ?? []);
  const locationOptions = new Set(hints.locationOptions ?? []);
  return commands.map((command) => ({
    ...command,
    options: command.options.map((option) => {
      if (option.path !== undefined || option.kind === 'boolean') return option;
      const kind = optionPathKind(option, pathOptions, locationOptions);
      return kind ? { ...option, path: kind } : option;
    }),
    positionals: command.positionals.map((positional) => {
      if (positional.path !== undefined) return positional;
      const kind = positionalPathKind(positional, command, hints.flavor);
      return kind ? { ...positional, path: kind } : positional;
    }),
  }));
}

function optionPathKind(
  option: OptionSpec,
  pathOptions: Set<string>,
  locationOptions: Set<string>,
): PathKind | undefined {
  if (locationOptions.has(option.name)) return 'location';
  if (pathOptions.has(option.name)) return 'path';
  const placeholder = (option.placeholder ?? '').replace(/^[=<[\s]+|[>\]\s.]+$/g, '');
  if (LOCATION_PLACEHOLDER.test(placeholder)) return 'location';
  if (PATH_PLACEHOLDER.test(placeholder)) return 'path';
  if (option.kind === 'integer') return undefined;
  if (LOCATION_NAME.test(option.name)) return 'location';
  if (PATH_NAME.test(option.name)) return 'path';
  if (option.kind === 'string' && option.description && PATH_WORDS.test(option.description)) return 'path';
  return undefined;
}

/**
 * Paths after `--` are always paths. Operands of git may be local repositories, `file://` URLs or
 * directories (clone, init, fetch, push, remote add, submodule add): all are checked, which refuses
 * only values that point outside the roots. Other CLIs' operands are checked when the usage line
 * names a file-like placeholder (`cp SOURCE DEST`, `cat [FILE]...`) or when there is no usage line.
 */
function positionalPathKind(
  positional: PositionalSpec,
  command: CommandSpec,
  flavor: CliFlavor,
): PathKind | undefined {
  if (positional.placement === 'path') return 'path';
  if (flavor === 'git') return 'location';
  const usage = command.usage ?? '';
  if (usage === '') return 'location';
  const placeholders = usage.match(/<[^>]+>|\b[A-Z][A-Z_-]+\b|\[[a-z][\w-]*\]/g) ?? [];
  const named = placeholders.some((word) => {
    const bare = word.replace(/^[<[]|[>\]]$/g, '').replace(/\.+$/, '');
    return PATH_PLACEHOLDER.test(bare) || LOCATION_PLACEHOLDER.test(bare) || /^(files?|paths?)$/i.test(bare);
  });
  return named ? 'location' : undefined;
}
