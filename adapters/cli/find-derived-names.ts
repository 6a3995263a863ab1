import { type Dir, lstatSync, opendirSync, statSync } from 'node:fs';
import { basename, dirname, posix, sep } from 'node:path';
import { BridgeError, quote } from '../../src/index.js';
import { type LinkMemo, realPathFrom, realPathOf } from './follow-links.js';

/** A path argument of a call: the value, the path it stands for, as text, absolute. */
export interface NamedPath {
  where: string;
  value: string;
  path: string;
}

/** A symbolic link at a name a program derives from a path argument, and where it leads. */
export interface DerivedName {
  where: string;
  value: string;
  /** The link, absolute, in a directory already resolved. */
  link: string;
  /** Where the link leads (see `realPathOf`). */
  real: string;
  /** Why the program may write or read it, for a refusal. */
  why: string;
}

/** Directory entries read in one call, over all its directories: a cloned tree can hold 100,000. */
export const MAX_ENTRIES = 20_000;

/** Names looked up one by one (an lstat each) in one call, once its directories are not read. */
export const MAX_LOOKUPS = 100_000;

// What programs add to a name they are given: wget's `--warc-file x` writes `x.warc.gz` (and
// `x.cdx`), openssl's `-CAcreateserial` `ca.srl`, sqlite3 `db-journal`, `-wal` and `-shm`, editors
// and `--backup` `x~`, `x.bak`, `x.orig`. Read from the directory, any name starting so counts;
// these are looked up by name where a directory is too large to read. split and csplit add a run
// of letters or digits to the prefix they are given (`part` gives `partaa`, `part00`), perhaps
// with an extension after it (`--additional-suffix=.txt`).
const SUFFIX_STARTS = new Set(['.', '-', '~']);
const SPLIT_SUFFIX = /^(?:[a-z]{2,16}|[0-9a-f]{2,16})(?:[^a-z0-9].*)?$/;
const KNOWN_SUFFIXES = [
  '~',
  '.bak',
  '.orig',
  '.srl',
  '.warc.gz',
  '.warc',
  '.cdx',
  '-journal',
  '-wal',
  '-shm',
  'aa',
  '00',
];

/**
 * Every symbolic link at a name a program derives from this call's path arguments rather than
 * names: `DIR/<base name>` of every other argument when one is an existing directory (cp, mv,
 * install and ln copy into it), with a suffix too (zstd's `--output-dir-flat`), and below it each
 * name of a directory argument's tree (`cp -r src DIR` writes `DIR/src/a/b`, `cp -r src/. DIR`
 * writes `DIR/a/b`); and `<name><suffix>` beside each argument (its name without its extension
 * too: `ca.pem` gives `ca.srl`), from its directory as written and as resolved (sqlite3 resolves
 * the database's links before adding `-journal`), and beside each of `elsewhere`: the relative
 * values as resolved from the other directories the program may resolve them from (see
 * `findBases`: zstd's `--output-dir-mirror out` writes `out/sub/x.zst` of `sub/x`). Each directory
 * is read once, at most `MAX_ENTRIES` entries in all; past that, names are looked up.
 * `copying` says how the call's options change where a copy goes (see `CopyModes`).
 */
export function findDerivedNames(
  named: readonly NamedPath[],
  seen?: LinkMemo,
  elsewhere: readonly NamedPath[] = [],
  copying: CopyModes = {},
): DerivedName[] {
  const found: DerivedName[] = [];
  const listing = new Listing();
  const resolved = named.map((item) => ({ ...item, real: realPathOf(item.path, seen) }));
  const suffixed = (item: NamedPath, place: string) => {
    const name = basename(place);
    if (!plainName(name)) return;
    // openssl's serial file replaces the extension: `-CA ca.pem` writes `ca.srl`.
    const dot = name.lastIndexOf('.');
    const stems = dot > 0 ? [name, name.slice(0, dot)] : [name];
    for (const link of stems.flatMap((stem) => listing.linksSuffixed(dirname(place), stem))) {
      const why =
        'a name the program may make of it by adding a suffix, as for a backup, journal, serial, archive or split piece';
      found.push({ where: item.where, value: item.value, link, real: realPathOf(link, seen), why });
    }
  };
  // Records a link at a name the program makes of `item`'s value, and where it leads.
  const pushFor = (item: NamedPath, why: string) => (link: string) =>
    found.push({ where: item.where, value: item.value, link, real: realPathOf(link, seen), why });
  const withKinds = resolved.map((item) => ({ ...item, directory: isDirectory(item.real) }));
  for (const dir of withKinds.filter((item) => item.directory)) {
    for (const item of withKinds) {
      if (item === dir) continue;
      const into = `into ${dir.where} ${quote(dir.value)}`;
      const push = (why: string) => pushFor(item, why);
      const name = posix.basename(item.path);
      const entry = plainName(name) ? listing.kindIn(dir.real, name) : undefined;
      if (entry === 'link') {
        push(`what a program copying, moving or linking ${into} writes`)(`${dir.real}${sep}${name}`);
      }
      // Writing into it with a suffix: zstd's `--output-dir-flat DIR` writes `DIR/<base name>.zst`.
      if (plainName(name)) suffixed(item, `${dir.real}${sep}${name}`);
      if (!item.directory) continue;
      // A directory copied recursively (`cp -r`, `rsync -r`) writes its whole tree there: below
      // `DIR/<base name>` when that exists, and into `DIR` itself for its contents (`src/.`, `src/`).
      const tree = push(`what a program copying it recursively ${into} writes`);
      const below = entry ? realPathOf(`${dir.real}${sep}${name}`, seen) : undefined;
      if (below && isDirectory(below)) listing.linksCopiedOver(item.real, below, tree);
      if (copying.intoItself || /\/\.?$/.test(item.path)) listing.linksCopiedOver(item.real, dir.real, tree);
    }
    // `cp --parents src/x DIR` writes `DIR/src/x`: the value as given, below DIR, through any link
    // on the way.
    if (!copying.withParents) continue;
    for (const item of withKinds) {
      // As given, `..` included: cp joins it to DIR and the kernel resolves `DIR/a/../b` through
      // a link `a`. Only its leading `/` goes.
      const relative = item.value.replace(/^\/+/, '');
      if (item === dir || !plainName(posix.normalize(relative))) continue;
      const link = `${dir.real}${sep}${relative}`;
      const real = realPathFrom(dir.real, relative, seen);
      const why = `what a program copying it with its parent directories into ${dir.where} ${quote(dir.value)} writes`;
      if (real !== posix.normalize(link))
        found.push({ where: item.where, value: item.value, link, real, why });
      // A directory copied so (`cp -r --parents src/sub DIR`) writes its tree below that place.
      if (item.directory && isDirectory(real)) listing.linksCopiedOver(item.real, real, pushFor(item, why));
    }
  }
  for (const item of [...resolved, ...elsewhere]) {
    const places = new Set([
      `${realPathOf(dirname(item.path), seen)}${sep}${basename(item.path)}`,
      realPathOf(item.path, seen),
    ]);
    for (const place of places) suffixed(item, place);
  }
  return found;
}

/** Options of a call that change where a copy goes. */
export interface CopyModes {
  /** A directory is copied into the destination itself, not below it (cp, mv, install `-T`). */
  intoItself?: boolean;
  /** Each source is copied below the destination with the path it was given (cp `--parents`). */
  withParents?: boolean;
}

function isDirectory(real: string): boolean {
  try {
    return statSync(real).isDirectory();
  } catch {
    return false;
  }
}

// `.` and `..` copy into the directory itself or above it: no name is made there.
function plainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && name !== sep;
}

/** The symbolic links and directories of each directory, read once, and by name once the budget is spent. */
class Listing {
  #entries = 0;
  #lookups = 0;
  readonly #dirs = new Map<string, Links | undefined>();
  readonly #walked = new Set<string>();

  /** Whether `dir` holds `name` as a symbolic link or a directory (one not read: looked up). */
  kindIn(dir: string, name: string): 'link' | 'directory' | undefined {
    const links = this.#read(dir);
    if (!links) {
      const kind = this.#kindOf(`${dir}${sep}${name}`);
      return kind === 'other' ? undefined : kind;
    }
    return links.exact.has(name) ? 'link' : links.dirs.has(name) ? 'directory' : undefined;
  }

  linksSuffixed(dir: string, name: string): string[] {
    const links = this.#read(dir);
    if (links) return (links.byStem.get(name) ?? []).map((link) => `${dir}${sep}${link}`);
    return KNOWN_SUFFIXES.map((suffix) => `${dir}${sep}${name}${suffix}`).filter((path) =>
      this.#isLink(path),
    );
  }

  /**
   * Each symbolic link a recursive copy of the tree `from` into `to` would write through: the
   * entries of `to` named as an entry of `from` at the same place, below directories both hold (a
   * directory of `to` only, not a link to one: a copy replaces no directory by a link's target).
   */
  linksCopiedOver(from: string, to: string, found: (link: string) => void): void {
    const key = `${from}\0${to}`;
    if (this.#walked.has(key)) return;
    this.#walked.add(key);
    let handle: Dir | undefined;
    const below: string[] = [];
    try {
      handle = opendirSync(from);
      for (let entry = handle.readSync(); entry; entry = handle.readSync()) {
        const place = `${to}${sep}${entry.name}`;
        const kind = this.#kindOf(place);
        if (kind === 'link') found(place);
        else if (kind === 'directory' && entry.isDirectory()) below.push(entry.name);
      }
    } catch (error) {
      if (error instanceof BridgeError) throw error;
      // Missing or unreadable: nothing the program could copy from there either.
    } finally {
      handle?.closeSync();
    }
    for (const name of below) this.linksCopiedOver(`${from}${sep}${name}`, `${to}${sep}${name}`, found);
  }

  #isLink(path: string): boolean {
    return this.#kindOf(path) === 'link';
  }

  #kindOf(path: string): 'link' | 'directory' | 'other' | undefined {
    if (++this.#lookups > MAX_LOOKUPS) {
      throw new BridgeError(
        'invalid_arguments',
        `refused: the paths of this call name more than ${MAX_LOOKUPS} places where a program may write a file it names after them (a copy into a directory, a suffix added), the most checked; name fewer paths per call`,
      );
    }
    try {
      const stat = lstatSync(path);
      return stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'directory' : 'other';
    } catch {
      return undefined;
    }
  }

  // Undefined once the budget is spent, in this directory or before it.
  #read(dir: string): Links | undefined {
    if (this.#dirs.has(dir)) return this.#dirs.get(dir);
    let links: Links | undefined = { exact: new Set(), dirs: new Set(), byStem: new Map() };
    let handle: Dir | undefined;
    try {
      handle = opendirSync(dir);
      for (let entry = handle.readSync(); entry; entry = handle.readSync()) {
        if (++this.#entries > MAX_ENTRIES) {
          links = undefined;
          break;
        }
        if (entry.isSymbolicLink()) addLink(links, entry.name);
        else if (entry.isDirectory()) links.dirs.add(entry.name);
      }
    } catch {
      // Missing or unreadable: nothing planted there that the program could use either.
    } finally {
      handle?.closeSync();
    }
    this.#dirs.set(dir, links);
    return links;
  }
}

interface Links {
  exact: Set<string>;
  /** The directories it holds (not links to one), where a tree copied into it goes on. */
  dirs: Set<string>;
  /** Each name before a `.`, `-` or `~` or a split suffix in a link's name, to the links named so. */
  byStem: Map<string, string[]>;
}

function addLink(links: Links, name: string): void {
  links.exact.add(name);
  for (let index = 1; index < name.length; index++) {
    if (!SUFFIX_STARTS.has(name[index] as string) && !SPLIT_SUFFIX.test(name.slice(index))) continue;
    const stem = name.slice(0, index);
    const named = links.byStem.get(stem);
    if (named) named.push(name);
    else links.byStem.set(stem, [name]);
  }
}
