import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { cacheDir } from './cache-dir.js';

// The files and directories that decide what the bridge itself serves and runs: its config file
// and the specs, schemas and operation files its sources read (a hot reload applies them: a caller
// who could rewrite the config through a CLI tool could add any program as a source), and its
// cache directory (the CLI discovery and OpenAPI conversion caches, and the V8 code cache, whose
// bytecode runs as the bridge). No command run for a caller may name them, whatever its roots say.

const protectedPaths = new Set<string>();

/** Protects `paths` (files or directories) from now on; each is kept by its real path too. */
export function protectPaths(paths: Iterable<string>): void {
  for (const path of paths) {
    protectedPaths.add(path);
    protectedPaths.add(realOrSelf(path));
  }
}

/** The protected path that `real` (an absolute real path) is, or lies below; undefined if none. */
export function protectedPathOf(real: string): string | undefined {
  for (const path of [realOrSelf(cacheDir()), ...protectedPaths]) {
    const rel = relative(path, real);
    if (rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))) return path;
  }
  return undefined;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
