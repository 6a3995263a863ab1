import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, posix, sep } from 'node:path';
import { BridgeError, inside, protectedPathOf, quote, realOrSelf } from '../../src/index.js';
import { propertyOf } from './build-input-schema.js';
import type { Policy } from './check-policy.js';
import type { CommandSpec, OptionSpec, PathKind } from './cli-spec.js';
import { findBases } from './find-bases.js';
import { findDerivedNames, type NamedPath } from './find-derived-names.js';
import { type LinkMemo, realPathFrom, realPathOf } from './follow-links.js';
import { refuseHomeConfig } from './guard-home-config.js';
import { percentDecoded } from './percent-decoded.js';

/**
 * Checks every path-valued argument of a call (see `inferPaths`) against the roots: resolved as
 * the program will resolve it, through every symbolic link, from `cwd` and from every other
 * directory the program may resolve it from (`findBases`: tar's `--directory`, curl's
 * `--output-dir`, git's work tree top), it must land inside one of the allowed roots and, when the
 * client gave MCP roots, inside one of those too. `-` (standard input or output) passes. Throws a
 * refusal naming the argument, where the value leads and what is allowed.
 */
export function confinePaths(
  command: CommandSpec,
  options: readonly OptionSpec[],
  args: Record<string, unknown>,
  cwd: string,
  policy: Pick<Policy, 'roots'>,
  clientRoots?: readonly string[],
  rules: PathRules = {},
): void {
  const client = clientRoots && clientRoots.length > 0 ? clientRoots.map(realOrSelf) : undefined;
  // Commands write into their working directory too (format-patch, clone without a destination).
  const cwdGuarded = protectedPathOf(cwd);
  if (cwdGuarded) throw ownFilesRefusal('cwd', cwd, cwd, cwdGuarded);
  const cwdConfig = refuseHomeConfig(policy.roots, 'cwd', cwd);
  if (cwdConfig) throw cwdConfig;
  const cwdWithin = protectedPart(cwd, rules.protectedDirs);
  if (cwdWithin) {
    throw new BridgeError(
      'invalid_arguments',
      `refused: cwd ${cwd} is inside ${cwdWithin}, where a file written could make the program run commands (hooks, configuration)`,
    );
  }
  const limits = { roots: policy.roots, client, protectedDirs: rules.protectedDirs };
  // Each path looked at once for the whole call: its values share their directories.
  const seen: LinkMemo = new Map();
  // Relative values that stay inside from cwd, resolved from the other directories at the end.
  const relative: Array<{ candidate: string; where: string; value: string; property: string }> = [];
  // Every value's path, for the names a program derives from them (see `findDerivedNames`), and
  // each relative one's from the other directories it may be resolved from.
  const named: NamedPath[] = [];
  const elsewhere: NamedPath[] = [];
  const check = (value: unknown, kind: PathKind | undefined, where: string, property: string): void => {
    // Every string at any depth: a repeatable two-value option arrives as [[name, value], …].
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) check(item, kind, `${where}[${index}]`, property);
      return;
    }
    if (typeof value !== 'string') return;
    const readings = kind ? localReadings(value) : [];
    // `@file` and `name=@file` read a file in curl (-d, -F), gh (-F), response files...; so do
    // httpie's `name@file`, `name:=@file` and `Header:@file`, and curl's `-F name=<file`:
    // checked in every value of such CLIs, wherever the reference stands (see `fileReferences`).
    if (rules.atFiles) {
      const references = fileReferences(value, MAX_REFERENCES);
      if (references.length > MAX_REFERENCES) {
        throw new BridgeError(
          'invalid_arguments',
          `refused: ${where} holds more than ${MAX_REFERENCES} places that may name a file (after "@" or "<"), the most checked; put the data in a file inside the roots and pass it as @file`,
        );
      }
      for (const reference of references) readings.push(...localReadings(reference));
    }
    for (const candidate of readings) {
      // Resolving costs a walk per component: a long value, or one with many references, would
      // hold the server for seconds. And programs can reach a longer path (`mkdir -p` goes a
      // directory at a time), so it is refused rather than passed unchecked.
      const bytes = Buffer.byteLength(candidate);
      if (bytes > PATH_MAX) {
        const instead = rules.atFiles
          ? 'put the data in a file inside the roots and pass it as @file'
          : 'use a shorter path';
        throw new BridgeError(
          'invalid_arguments',
          `refused: ${where} ${quote(value)} holds a path (or what may be one) of ${bytes} bytes, longer than the ${PATH_MAX} checked; ${instead}`,
        );
      }
      if (isAbsolute(candidate)) {
        confine(realPathOf(candidate, seen), where, value, limits);
        named.push({ where, value, path: candidate });
        continue;
      }
      // Not `join`: it would fold `link/..` away as text before the link is followed.
      confine(realPathOf(`${cwd}${sep}${candidate}`, seen), where, value, limits);
      named.push({ where, value, path: `${cwd}${sep}${candidate}` });
      if (climbs(candidate)) {
        throw new BridgeError(
          'invalid_arguments',
          `refused: ${where} ${quote(value)} climbs above cwd with "..", and programs resolve paths from other directories than cwd, not all of which the checks know, where it could lead out of the roots; set cwd to a directory the path does not climb out of`,
        );
      }
      relative.push({ candidate, where, value, property });
    }
  };
  for (const option of options) {
    if (!option.path && !rules.atFiles) continue;
    const kind = option.path || undefined;
    const property = propertyOf(option);
    check(Object.hasOwn(args, property) ? args[property] : undefined, kind, property, property);
  }
  for (const positional of command.positionals) {
    const value = Object.hasOwn(args, positional.name) ? args[positional.name] : undefined;
    if ((!positional.path && !rules.atFiles) || !Array.isArray(value)) continue;
    check(value, positional.path || undefined, positional.name, positional.name);
  }
  // The other directories the program may resolve them from, found once per call (each value
  // naming one has passed the checks above).
  for (const base of findBases(options, args, cwd, policy.roots, rules.aboveCwd === true)) {
    if (base.dir === cwd) continue;
    const real = realPathOf(base.dir, seen);
    // The directory itself is where the program goes (tar's `-C a -C b` goes to `a/b`).
    if (base.property) confine(real, base.property, base.value ?? '', limits);
    // The client's roots bound where cwd may be; git looks above them for the work tree's top by
    // design, and from there only --root bounds it: with the client's roots applied there, every
    // pathspec of a client rooted below the top would be refused.
    const inClient = !client || client.some((root) => inside(real, root));
    const there = { ...limits, client: inClient ? client : undefined, from: { real, reason: base.reason } };
    for (const { candidate, where, value, property } of relative) {
      // A directory option's own value is resolved from the directories before it, not itself.
      if (base.property === property) continue;
      confine(realPathFrom(real, candidate, seen), where, value, there);
      // A directory an option names is one the program writes into; git, looking above cwd for
      // its work tree's top, makes no file name of a pathspec (its `.lock` files are made anew).
      if (base.property) elsewhere.push({ where, value, path: `${real}${sep}${candidate}` });
    }
  }
  // A name the program makes from a value rather than is given (cp's `DIR/<base name>`, wget's
  // `x.warc.gz`, zstd's `--output-dir-mirror out` `out/sub/x.zst` of `sub/x`) holds no link
  // leading out either, from wherever the value is resolved: a clone or an archive plants them.
  const copying = {
    intoItself: args['no-target-directory'] === true || args.T === true,
    withParents: args.parents === true,
  };
  for (const { where, value, link, real, why } of findDerivedNames(named, seen, elsewhere, copying)) {
    confine(real, where, value, { ...limits, derived: { link, why } });
  }
  // The files a program reads from its project whatever the arguments (npm's package.json, its
  // lockfile and .npmrc): a link planted there would have it read, print or obey a file outside.
  for (const { path, what } of rules.projectFiles ?? []) {
    if (isPresent(path)) confine(realPathOf(path, seen), what, path, limits);
  }
}

// Whether anything, a dangling link included, has the name `path`.
function isPresent(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Where a resolved path may lie, and the directory it was resolved from when not `cwd`. */
interface Limits {
  roots: readonly string[];
  client: readonly string[] | undefined;
  protectedDirs: readonly string[] | undefined;
  from?: { real: string; reason?: string };
  /** A link at a name the program derives from the value, which `real` is where it leads. */
  derived?: { link: string; why: string };
}

/**
 * Throws unless `real`, where `where`'s `value` leads, is inside the roots (and the client's),
 * neither a file the bridge reads itself nor inside a protected directory (`.git`).
 */
function confine(real: string, where: string, value: string, limits: Limits): void {
  const guarded = protectedPathOf(real);
  if (guarded) throw ownFilesRefusal(where, value, real, guarded);
  const { roots, client, from, derived } = limits;
  const resolves = derived
    ? `leads the program to ${derived.link} (${derived.why}), a symbolic link to`
    : from
      ? `resolves from ${from.real} (${from.reason}) to`
      : 'resolves to';
  const allowed = roots.some((root) => inside(real, root));
  if (allowed && (!client || client.some((root) => inside(real, root)))) {
    const config = refuseHomeConfig(roots, where, real, value);
    if (config) throw config;
    const within = protectedPart(real, limits.protectedDirs);
    if (!within) return;
    throw new BridgeError(
      'invalid_arguments',
      `refused: ${where} ${quote(value)} ${resolves} ${real}, inside ${within}, where a file written could make the program run commands (hooks, configuration)`,
    );
  }
  const [scope, listed] = allowed ? ["the client's roots", client ?? []] : ['the allowed roots', roots];
  throw new BridgeError(
    'invalid_arguments',
    `refused: ${where} ${quote(value)} ${resolves} ${real}, which is outside ${scope}: ${listed.join(', ')}${allowed ? '' : ' (set with --root)'}`,
  );
}

// What the bridge itself reads to decide what it serves and runs (see src/protected-paths.ts).
function ownFilesRefusal(where: string, value: string, real: string, guarded: string): BridgeError {
  const what = real === guarded ? guarded : `${real}, inside ${guarded},`;
  return new BridgeError(
    'invalid_arguments',
    `refused: ${where} ${quote(value)} resolves to ${what} which the bridge reads to decide what it serves and runs (its config, a source's spec or schema, its caches)`,
  );
}

/** File references checked in one value at most; a value with more is refused. */
const MAX_REFERENCES = 256;

/** The longest path checked, in bytes: Linux's PATH_MAX, the longest a program can open at once. */
const PATH_MAX = 4096;

/**
 * What may follow an `@`, or a `<` at the start or after `=`, in a value of a CLI that reads
 * `@file` arguments, as a file name: curl's `-d @file`, `-F name=@file`, `-F "name=@\"file\""`,
 * `-F "f=x;headers=@file"`, `--data-urlencode "na me@file"`, `-F name=<file`; httpie's
 * `name@file` and `Header:@file`. Each place gives the rest of the value, and the rest up to a
 * `;` (-F's separator), both with curl's quotes taken off: a reading too many only refuses a
 * value that names a place outside the roots. After `=@`, each comma-separated piece is read the
 * same way: curl's `-F "f=@a;type=x/y,b"` sends the files `a` and `b`. Not `@{…}` (a revision).
 * Stops once more than `limit` are found: the caller refuses such a value.
 */
function fileReferences(value: string, limit: number): string[] {
  const found = new Set<string>();
  for (let at = 0; at < value.length && found.size <= limit; at++) {
    const char = value[at];
    const opens = char === '@' ? value[at + 1] !== '{' : char === '<' && (at === 0 || value[at - 1] === '=');
    if (!opens) continue;
    const rest = value.slice(at + 1);
    const pieces = char === '@' && value[at - 1] === '=' ? [rest, ...rest.split(',')] : [rest];
    for (const piece of pieces) {
      if (found.size > limit) break;
      for (const text of [piece, piece.split(';')[0] as string]) {
        found.add(text);
        const quoted = /^"((?:[^"\\]|\\.)*)"?/.exec(text);
        if (quoted) found.add((quoted[1] as string).replace(/\\(.)/g, '$1'));
      }
      found.delete('');
    }
  }
  return [...found];
}

/** What a CLI adds to the roots check. */
export interface PathRules {
  /** Directory names no path argument may name or point below (git: `.git`, whose hooks and config run programs). */
  protectedDirs?: readonly string[];
  /** The program reads `@file` and `name=@file` arguments (not git, whose `@{u}` and `@~1` are revisions). */
  atFiles?: boolean;
  /**
   * The program looks for its project above `cwd` and resolves values from its top (git: from the
   * work tree's top, `--contents`, `--ignore-revs-file`, pathspecs, fetch and push paths): every
   * directory between `cwd` and its outermost root is one they are resolved from too.
   */
  aboveCwd?: boolean;
  /**
   * Files the program reads from its project on every run, and the places the project names that
   * it reads too (npm's workspaces), absolute, each with what it is for a refusal.
   */
  projectFiles?: ReadonlyArray<{ path: string; what: string }>;
}

/**
 * The protected directory `real` is or lies below (`/r/repo/.git` for `/r/repo/.git/config`, and
 * for `/r/repo/.git` itself: a clone into `proj/.git` writes the repository's config there), if
 * any. Names are compared without case, as case-insensitive filesystems and git do.
 */
function protectedPart(real: string, names: readonly string[] | undefined): string | undefined {
  if (!names || names.length === 0) return undefined;
  const parts = real.split(sep);
  const lower = names.map((name) => name.toLowerCase());
  const index = parts.findIndex((part) => lower.includes(part.toLowerCase()));
  return index < 0 ? undefined : parts.slice(0, index + 1).join(sep);
}

/**
 * Whether a relative path climbs above the directory it starts from (`../x`, `a/../../x`). Programs
 * resolve such values from other directories than `cwd`: git from the work tree's top (a fetch
 * from `../../outside-repo` in a subdirectory), tar after `-C DIR`, curl after `--output-dir`.
 */
function climbs(value: string): boolean {
  if (isAbsolute(value)) return false;
  const normal = posix.normalize(value);
  return normal === '..' || normal.startsWith('../');
}

/**
 * The local paths a value may stand for. The value itself, always: even a URL-looking
 * `host:/../x` is a directory name to `git clone`'s destination. A `file:` URL's path too (raw
 * and percent-decoded: programs differ), and for `~`, the home directory (some programs expand it
 * themselves). `-` and `` stand for nothing.
 */
function localReadings(value: string): string[] {
  if (value === '' || value === '-') return [];
  const readings = [value];
  // `name=value` operands (dd's `if=FILE` and `of=FILE`, make's and env's assignments): the value.
  const assigned = /^[A-Za-z_][\w.-]*=(.+)$/s.exec(value)?.[1];
  if (assigned && assigned !== '-') readings.push(assigned);
  if (/^file:/i.test(value)) {
    const rest = value.slice('file:'.length);
    for (const text of [rest, percentDecoded(rest)]) {
      // `file://host/path`: the path starts at the first slash after the host. `file:/path` (one
      // slash, which curl reads as a file URL too) and `file:path` are the path itself.
      const hosted = text.startsWith('//') ? text.slice(2) : undefined;
      readings.push(hosted === undefined ? text : hosted.slice(Math.max(hosted.indexOf('/'), 0)) || sep);
    }
  }
  const tilde = /^~([^/]*)(\/.*)?$/.exec(value);
  if (tilde) {
    const home = tilde[1] ? join(dirname(homedir()), tilde[1]) : homedir();
    readings.push(`${home}${tilde[2] ?? ''}`);
  }
  return readings;
}
