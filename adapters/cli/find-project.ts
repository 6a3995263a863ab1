import { existsSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import { inside } from '../../src/index.js';

/**
 * Where a program that looks above `cwd` for its project (npm: the first directory holding a
 * `package.json` or `node_modules`, whose `.npmrc` configures it) finds it, looking no higher than
 * the outermost root holding `cwd`; `cwd` itself when no directory up to there holds a marker.
 * Passed to the program explicitly (npm's `--prefix`), so a project above the roots is never used.
 */
export function findProject(cwd: string, roots: readonly string[], markers: readonly string[]): string {
  const top = roots
    .filter((root) => inside(cwd, root))
    .reduce<string | undefined>((outer, root) => (outer && inside(root, outer) ? outer : root), undefined);
  for (let dir = cwd; top !== undefined; dir = dirname(dir)) {
    if (markers.some((marker) => existsSync(`${dir === sep ? '' : dir}${sep}${marker}`))) return dir;
    if (dir === top || dir === dirname(dir)) break;
  }
  return cwd;
}
