import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';

/** The real path of `path` (symbolic links resolved), or `path` itself when it does not resolve. */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Whether `path` is `root` or below it (both absolute and already real). */
export function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
