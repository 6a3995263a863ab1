import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';

/** The most of a manifest or lockfile read: a large monorepo's lockfile runs to a few MiB. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/**
 * The places an npm project names besides its own tree, absolute, each with what named it: its
 * workspaces (`package.json`'s `workspaces`, a glob standing for the directory before its first
 * wildcard), its `file:` and `link:` dependencies, and its lockfiles' package paths and link
 * targets. npm reads each one's `package.json` (`ls`, `query`, even with `--package-lock-only`),
 * so a clone whose lockfile names `../../outside/private` had the bridge print a file outside the
 * roots. Unreadable or malformed files name nothing (npm refuses them itself).
 */
export function findNpmReferences(projectDir: string): Array<{ path: string; what: string }> {
  const found = new Map<string, string>();
  const add = (reference: string, what: string) => {
    const path = resolve(projectDir, staticPart(reference));
    if (!found.has(path)) found.set(path, what);
  };
  const manifest = readJson(resolve(projectDir, 'package.json'));
  if (isRecord(manifest)) {
    const workspaces = Array.isArray(manifest.workspaces)
      ? manifest.workspaces
      : isRecord(manifest.workspaces)
        ? manifest.workspaces.packages
        : undefined;
    for (const pattern of Array.isArray(workspaces) ? workspaces : []) {
      if (typeof pattern === 'string') add(pattern, 'a workspace named in package.json');
    }
    for (const key of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
      const dependencies = manifest[key];
      if (!isRecord(dependencies)) continue;
      for (const spec of Object.values(dependencies)) {
        const local = typeof spec === 'string' ? /^(?:file|link):(.*)$/.exec(spec)?.[1] : undefined;
        if (local) add(local, `a ${key.replace(/ies$/, 'y')} named in package.json`);
      }
    }
  }
  for (const lockfile of ['package-lock.json', 'npm-shrinkwrap.json']) {
    const lock = readJson(resolve(projectDir, lockfile));
    if (!isRecord(lock)) continue;
    const packages = isRecord(lock.packages) ? lock.packages : {};
    for (const [key, entry] of Object.entries(packages)) {
      // Installed packages lie below node_modules (a link among them names its target, below);
      // the rest (workspaces, file: dependencies) are named by their paths. A lockfile holds
      // thousands of the former, so only the latter are looked at.
      if (key !== '' && !(key.startsWith('node_modules/') && !key.split('/').includes('..'))) {
        add(key, `a package named in ${lockfile}`);
      }
      if (isRecord(entry) && entry.link === true && typeof entry.resolved === 'string') {
        add(entry.resolved, `a link named in ${lockfile}`);
      }
    }
    // Lockfile version 1: `file:` versions of dependencies, at any depth.
    const walk = (dependencies: unknown, depth: number): void => {
      if (!isRecord(dependencies) || depth > 64) return;
      for (const entry of Object.values(dependencies)) {
        if (!isRecord(entry)) continue;
        const local = typeof entry.version === 'string' ? /^file:(.*)$/.exec(entry.version)?.[1] : undefined;
        if (local) add(local, `a dependency named in ${lockfile}`);
        walk(entry.dependencies, depth + 1);
      }
    };
    walk(lock.dependencies, 0);
  }
  return [...found].map(([path, what]) => ({ path, what }));
}

// The directory a glob stands for: what comes before the segment holding its first wildcard.
function staticPart(reference: string): string {
  const wildcard = reference.search(/[*?[\]{}!]/);
  if (wildcard < 0) return reference;
  const slash = reference.lastIndexOf('/', wildcard);
  return slash < 0 ? '.' : reference.slice(0, slash) || '/';
}

function readJson(path: string): unknown {
  let fd: number | undefined;
  try {
    // Not a FIFO or a device planted at the name: opened without blocking, read only if regular;
    // not through a link either (one leading out is refused as a project file before npm runs).
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < buffer.length) {
      const count = readSync(fd, buffer, read, buffer.length - read, read);
      if (count === 0) break;
      read += count;
    }
    return JSON.parse(buffer.subarray(0, read).toString('utf8'));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
