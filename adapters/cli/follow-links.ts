import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, sep } from 'node:path';

/**
 * The real path `path` (absolute) leads to, resolving symbolic links component by component as the
 * kernel does, so `link/../x` goes where the link points, not where the text says. A missing
 * component counts as the directory the program would create (`mkdir -p`), so the walk goes on:
 * `missing/../link/x` still follows `link`; a dangling link is followed to where it points.
 */
export function realPathOf(path: string, seen?: LinkMemo): string {
  return walk(sep, path, { left: MAX_LINKS }, seen);
}

/**
 * The most links one resolution follows, in all, as Linux's `MAXSYMLINKS`: past it the kernel
 * fails with ELOOP. Counting nesting alone let `a -> b/b/b/b`, `b -> c/c/c/c`… cost 4^N walks
 * (ten levels held the server for seconds), where the kernel gives up at once.
 */
const MAX_LINKS = 40;

/**
 * What one check has found of each path it looked at: a link's target, `null` for a missing path,
 * `''` for anything else. One call's values share most of their directories (a git call checks
 * each from every directory up to its root): each is looked at once.
 */
export type LinkMemo = Map<string, string | null>;

/**
 * `realPathOf` of `relative` below `realDir`, a path `realPathOf` gave: only `relative`'s own
 * components are walked, so one directory resolved once serves many values (a git call checks
 * each value from every directory up to its root).
 */
export function realPathFrom(realDir: string, relative: string, seen?: LinkMemo): string {
  return walk(realDir, relative, { left: MAX_LINKS }, seen);
}

// Walks `path`'s components from `start` (a real path; `sep` for an absolute `path`).
function walk(start: string, path: string, links: { left: number }, seen: LinkMemo | undefined): string {
  const parts = path.split(sep).filter((part) => part !== '' && part !== '.');
  let current: string = isAbsolute(path) ? sep : start;
  // How many components `current` lies below the first missing one: nothing below a missing
  // directory exists, so the walk skips the lstat until `..` climbs back out (one per component
  // keeps a long path linear).
  let missing = 0;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as string;
    if (part === '..') {
      current = dirname(current);
      if (missing > 0) missing--;
      continue;
    }
    // Not `join`: it normalises the whole path again at every component. `part` holds no `/`,
    // `.` or `..`, so the text is the same.
    const next = current === sep ? `${sep}${part}` : `${current}${sep}${part}`;
    if (missing > 0) {
      current = next;
      missing++;
      continue;
    }
    let found = seen?.get(next);
    if (found === undefined) {
      found = lookAt(next);
      seen?.set(next, found);
    }
    // Missing (or unreadable): a plain directory-to-be, whatever follows is walked on.
    if (found === null) missing = 1;
    if (!found) current = next;
    // Past the kernel's count the program fails with ELOOP: where the walk stands is as good an answer.
    else if (--links.left < 0) return [next, ...parts.slice(index + 1)].join(sep);
    else current = walk(sep, isAbsolute(found) ? found : `${current}${sep}${found}`, links, seen);
  }
  return current;
}

// A link's target, `null` when `path` is missing or unreadable, `''` for anything else.
function lookAt(path: string): string | null {
  try {
    // Not under /proc: `/proc/self`, its `cwd`, `root` and `fd/N` (and `/dev/fd`, `/dev/stdin`,
    // which lead there) are the process that opens them, the command, not this one; taken as
    // written, they lie outside any root but `/`.
    return !underProc(path) && lstatSync(path).isSymbolicLink() ? readlinkSync(path) : '';
  } catch {
    return null;
  }
}

function underProc(path: string): boolean {
  return path.startsWith(`${sep}proc${sep}`);
}
