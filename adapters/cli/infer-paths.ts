import type { CliFlavor, CommandSpec, OptionSpec, PathKind, PositionalSpec } from './cli-spec.js';

/** What the inference knows besides the commands: the overlay's lists of path-valued options. */
export interface PathHints {
  flavor: CliFlavor;
  /** Long option names (no dashes) whose value is a local file or directory in every command. */
  pathOptions?: readonly string[];
  /** Long option names whose value is a repository or URL, local when a path or `file://`. */
  locationOptions?: readonly string[];
}

// Words that, as a part of a placeholder (`<file>`, `FILE`, `<template-directory>`,
// `<file-spec-src>`, `<range:file>`) or of an option name (`--ignore-revs-file`, `--exclude-from`,
// `--kubeconfig`, `--cert`), say the value is a file or directory; or a repository, local or remote.
const PATH_WORDS = new Set(
  'file files filename filenames path paths pathname dir dirs directory folder gitdir src source dest destination target archive input output out template contents kubeconfig config cwd chdir root workdir worktree from marks cert cacert prefix socket'.split(
    ' ',
  ),
);
const LOCATION_WORDS = new Set(['repo', 'repository', 'url', 'uri', 'remote', 'location', 'reference']);
// Name parts that are too common to decide alone (`--from` a revision, `--source` a
// ref), unless they are the whole name: `--prefix` and csplit's PREFIX (where output files go) but
// not `--subject-prefix`; `--socket` and redis-cli's `-s socket` but not `--socket-timeout`.
const WEAK_PARTS = new Set([
  'from',
  'source',
  'src',
  'target',
  'input',
  'root',
  'out',
  'config',
  'prefix',
  'socket',
]);

// Descriptions that say the value is a file or directory: "Path to the kubeconfig file", "read message from file".
// Not a "file format" (`-inform`: "Input file format") or a "file pass phrase" (its source, `pass:…`).
const PATH_PROSE = /\b(path to|path of|file|filename|directory|folder)\b(?!\s+(format|pass[- ]?phrase))/i;

/** The words of a placeholder or an option name: `<template-directory>` is `template`, `directory`. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/^[=<[\s]+|[>\]\s.]+$/g, '')
    .toLowerCase()
    .split(/[-_:\s<>[\]]+/)
    .filter(Boolean);
}

// One-word compounds ending in "file" or "dir" (`--rawfile`, `--slurpfile`, `--keyfile`,
// `--logdir`), except the one common word that is not a path.
const COMPOUND = /^[a-z]{2,}(file|dir)$/;

function kindOfWords(words: string[], whole: boolean): PathKind | undefined {
  if (words.some((word) => LOCATION_WORDS.has(word))) return 'location';
  const strong = words.filter(
    (word) =>
      (PATH_WORDS.has(word) && (whole || !WEAK_PARTS.has(word))) ||
      (COMPOUND.test(word) && word !== 'profile'),
  );
  return strong.length > 0 ? 'path' : undefined;
}

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
  const placeholder = wordsOf(option.placeholder ?? '');
  const fromPlaceholder = kindOfWords(placeholder, true);
  if (fromPlaceholder) return fromPlaceholder;
  if (option.kind === 'integer' || option.kind === 'enum') return undefined;
  const name = wordsOf(option.name);
  const fromName = kindOfWords(name, name.length === 1);
  if (fromName) return fromName;
  if (option.kind === 'string' && option.description && PATH_PROSE.test(option.description)) return 'path';
  return undefined;
}

/**
 * Paths after `--` are always paths. Operands of git may be local repositories, `file://` URLs or
 * directories (clone, init, fetch, push, remote add, submodule add): all are checked, which refuses
 * only values that point outside the roots. Other CLIs' operands are checked when the usage line
 * names a file-like placeholder (`cp SOURCE DEST`, `cat [FILE]...`, find's `[path...]`, scp's bare
 * `source ... target`) or when there is no usage line.
 */
const PROGRAM_OPERAND = /\b(program|programfile|progfile|prog|script)\b/i;

function positionalPathKind(
  positional: PositionalSpec,
  command: CommandSpec,
  flavor: CliFlavor,
): PathKind | undefined {
  if (positional.placement === 'path') return 'path';
  if (flavor === 'git') return 'location';
  const usage = command.usage ?? '';
  if (usage === '') return 'location';
  const isPath = (word: string) => kindOfWords(wordsOf(word), true) !== undefined;
  // Upper-case placeholders may end in digits (sdiff's and link's `FILE1 FILE2`).
  const placeholders = (usage.match(/<[^>]+>|\b[A-Z][A-Z_-]+\d*\b|\[[a-z][\w-]*\]/g) ?? []).map((word) =>
    word.replace(/\d+$/, ''),
  );
  if (placeholders.some(isPath)) return 'location';
  // What is left once the options' groups (`[-S program]`, `[-F ssh_config]`) are taken out.
  const operands = usage.replace(/\[-[^\]]*\]/g, ' ');
  // Operands that start with a program (awk's `[Program] [file ...]`, perl's `[programfile]`,
  // node's `[script.js]`) are code and files in one list: an awk program `/re/ {print}` is no path,
  // and the program can open any file itself (interpreters are served under --sandbox, see README).
  if (PROGRAM_OPERAND.test(operands)) return undefined;
  // Lower-case forms: find's `[path...]`, openssl's `[file...]`, and bare words (scp's
  // `source ... target`, dd's "Copy a file"; the first word is the program's name).
  const lower = operands.match(/\[[a-z][\w-]* ?\.\.\.\]/g) ?? [];
  const bare = operands
    .split(/\s+/)
    .slice(1)
    .map((word) => word.replace(/[.,;:]+$/, ''))
    .filter((word) => /^[a-z][\w-]*$/.test(word));
  return [...lower, ...bare].some(isPath) ? 'location' : undefined;
}
