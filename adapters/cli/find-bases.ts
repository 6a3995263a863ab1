import { dirname, isAbsolute, sep } from 'node:path';
import { BridgeError, inside } from '../../src/index.js';
import { propertyOf } from './build-input-schema.js';
import type { OptionSpec } from './cli-spec.js';
import { wordsOf } from './infer-paths.js';

/** A directory a program may resolve the relative path values of a call from. */
export interface Base {
  /** Absolute, as text: its links are followed with the value's own (see `realPathOf`). */
  dir: string;
  /** Why the program may resolve values from here, for a refusal; none for `cwd` itself. */
  reason?: string;
  /** The argument naming it, whose own value is resolved from the directories before it only. */
  property?: string;
  /** That argument's value (the last, of several). */
  value?: string;
}

/** The most directories one call's values are resolved from: each costs a walk per value. */
export const MAX_BASES = 64;

/**
 * Every directory a program may resolve a relative path value of this call from, `cwd` first.
 * Programs do not all resolve from `cwd`: tar resolves member names after `--directory`, curl an
 * `--output` under `--output-dir`, wget under `--directory-prefix`; a help text does not say which
 * directory options do, so every option naming a directory counts (see `namesDirectory`), each
 * value from `cwd` and from the values before it (tar's `-C a -C b` is `a/b`). A program that looks
 * for its project above `cwd` (`aboveCwd`: git, which resolves `--contents`, pathspecs and
 * repository paths from the work tree's top) may resolve from any directory between `cwd` and the
 * outermost root holding it.
 */
export function findBases(
  options: readonly OptionSpec[],
  args: Record<string, unknown>,
  cwd: string,
  roots: readonly string[],
  aboveCwd: boolean,
): Base[] {
  const bases = new Map<string, Base>([[cwd, { dir: cwd }]]);
  const add = (base: Base) => {
    if (!bases.has(base.dir)) bases.set(base.dir, base);
    if (bases.size > MAX_BASES) throw tooMany(options, aboveCwd);
  };
  for (const option of options) {
    if (!namesDirectory(option)) continue;
    const property = propertyOf(option);
    const value = Object.hasOwn(args, property) ? args[property] : undefined;
    let from = cwd;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'string' || item === '') continue;
      // Not `join`: it would fold `link/..` away as text before the link is followed.
      from = isAbsolute(item) ? item : `${from}${sep}${item}`;
      add({ dir: from, reason: `named by ${property}`, property, value: item });
    }
  }
  if (aboveCwd) {
    const top = roots
      .filter((root) => inside(cwd, root))
      .reduce<string | undefined>((outer, root) => (outer && inside(root, outer) ? outer : root), undefined);
    for (let dir = cwd; top !== undefined && dir !== top && dir !== dirname(dir); ) {
      dir = dirname(dir);
      add({ dir, reason: "above cwd, where the program may find its project's top" });
    }
  }
  return [...bases.values()];
}

// Words that say an option's value is a directory: tar's `-C DIR`, curl's `--output-dir <dir>`,
// wget's `-P PREFIX`, git's `<template-directory>`, a name such as `--chdir` or `--workdir`.
const DIRECTORY_WORDS = new Set(['dir', 'dirs', 'directory', 'folder', 'prefix', 'chdir', 'cwd', 'workdir']);

/**
 * Whether an option's value names a directory, by its placeholder or, without one, its name (one
 * word ending in `dir` too: `--gitdir`, `--outdir`). A directory the program resolves nothing from
 * (curl's `--capath`) costs little: a value is refused from it only where a link leads out.
 */
export function namesDirectory(option: OptionSpec): boolean {
  if (option.path !== 'path' || option.kind === 'boolean') return false;
  const placeholder = wordsOf(option.placeholder ?? '');
  const words = placeholder.length > 0 ? placeholder : wordsOf(option.name);
  return words.some((word) => DIRECTORY_WORDS.has(word) || /^[a-z]{2,}dir$/.test(word));
}

function tooMany(options: readonly OptionSpec[], aboveCwd: boolean): BridgeError {
  const which = [
    'cwd',
    ...(aboveCwd ? ['the directories above it up to its root'] : []),
    ...options.filter(namesDirectory).map(propertyOf),
  ];
  const instead = aboveCwd ? 'set cwd nearer its root, or name fewer directories' : 'name fewer directories';
  return new BridgeError(
    'invalid_arguments',
    `refused: the paths of this call may be resolved from more than ${MAX_BASES} directories (${which.join(', ')}), the most checked; ${instead}`,
  );
}
