import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, sep } from 'node:path';

/**
 * The real path `path` (absolute) leads to, resolving symbolic links component by component as the
 * kernel does, so `link/../x` goes where the link points, not where the text says. A missing
 * component counts as the directory the program would create (`mkdir -p`), so the walk goes on:
 * `missing/../link/x` still follows `link`; a dangling link is followed to where it points.
 */
export function realPathOf(path: string, depth = 0): string {
  if (depth > 40) return path; // a link loop: the program fails with ELOOP anyway
  const parts = path.split(sep).filter((part) => part !== '' && part !== '.');
  let current: string = sep;
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
    let link: string | undefined;
    try {
      // Not under /proc: `/proc/self`, its `cwd`, `root` and `fd/N` (and `/dev/fd`, `/dev/stdin`,
      // which lead there) are the process that opens them, the command, not this one; taken as
      // written, they lie outside any root but `/`.
      if (!underProc(next) && lstatSync(next).isSymbolicLink()) link = readlinkSync(next);
    } catch {
      // Missing (or unreadable): a plain directory-to-be, whatever follows is walked on.
      missing = 1;
    }
    if (link === undefined) current = next;
    else current = realPathOf(isAbsolute(link) ? link : `${current}${sep}${link}`, depth + 1);
  }
  return current;
}

function underProc(path: string): boolean {
  return path.startsWith(`${sep}proc${sep}`);
}
