import { type Dirent, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BridgeError, isPlainObject, quote } from '../../src/index.js';
import { readProjectFile } from './read-project-file.js';

/** The most of a manifest or lockfile read: a large monorepo's lockfile runs to a few MiB; past it the call is refused. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/**
 * The places an npm project names besides its own tree, absolute, each with what named it: its
 * workspaces (`package.json`'s `workspaces`, a glob standing for the directory before its first
 * wildcard), its `file:` and `link:` dependencies, and its lockfiles' package paths and link
 * targets. npm reads each one's `package.json` (`ls`, `query`, even with `--package-lock-only`),
 * so a clone whose lockfile names `../../outside/private` had the bridge print a file outside the
 * roots. A file too large or not JSON (a byte order mark is allowed, as npm allows it) refuses the
 * call; a missing or unreadable one names nothing.
 */
export function findNpmReferences(projectDir: string): Array<{ path: string; what: string }> {
  const found = new Map<string, string>();
  const budget = { entries: MAX_ENTRIES };
  const add = (reference: string, what: string) => {
    const path = resolve(projectDir, staticPart(reference));
    if (found.has(path)) return;
    // Each is resolved through its links on every call: a lockfile naming 500,000 of them held
    // the event loop ~19 s a call.
    if (found.size >= MAX_REFERENCES) {
      throw new BridgeError(
        'invalid_arguments',
        `refused: the npm project ${quote(projectDir)} names more than ${MAX_REFERENCES.toLocaleString('en-US')} places besides its installed packages (workspaces, file: dependencies, lockfile paths and links), too many to check for links leading out of the roots`,
      );
    }
    found.set(path, what);
  };
  const manifest = readJson(resolve(projectDir, 'package.json'));
  if (isPlainObject(manifest)) {
    const workspaces = Array.isArray(manifest.workspaces)
      ? manifest.workspaces
      : isPlainObject(manifest.workspaces)
        ? manifest.workspaces.packages
        : undefined;
    for (const pattern of Array.isArray(workspaces) ? workspaces : []) {
      if (typeof pattern !== 'string') continue;
      add(pattern, 'a workspace named in package.json');
      // What a glob matches: the links below its fixed part (`packages/*` with `packages/x` a link).
      if (staticPart(pattern) !== pattern) {
        const deep = pattern.includes('**');
        for (const link of linksBelow(resolve(projectDir, staticPart(pattern)), deep ? 8 : 1, budget)) {
          add(link, 'a workspace named in package.json');
        }
      }
    }
    for (const key of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
      const dependencies = manifest[key];
      if (!isPlainObject(dependencies)) continue;
      for (const spec of Object.values(dependencies)) {
        const local = typeof spec === 'string' ? /^(?:file|link):(.*)$/.exec(spec)?.[1] : undefined;
        if (local) add(local, `a ${key.replace(/ies$/, 'y')} named in package.json`);
      }
    }
  }
  // The installed packages: npm reads every one's package.json, links included (`node_modules/x`
  // or a scope `node_modules/@s` planted as a link to a directory outside).
  const scopes = (name: string) => name.startsWith('@');
  for (const link of linksBelow(resolve(projectDir, 'node_modules'), 2, budget, scopes)) {
    add(link, 'an installed package in node_modules');
  }
  for (const lockfile of ['package-lock.json', 'npm-shrinkwrap.json']) {
    const lock = readJson(resolve(projectDir, lockfile));
    if (!isPlainObject(lock)) continue;
    const packages = isPlainObject(lock.packages) ? lock.packages : {};
    for (const [key, entry] of Object.entries(packages)) {
      // Installed packages lie below node_modules (a link among them names its target, below);
      // the rest (workspaces, file: dependencies) are named by their paths. A lockfile holds
      // thousands of the former, so only the latter are looked at.
      if (key !== '' && !(key.startsWith('node_modules/') && !key.split('/').includes('..'))) {
        add(key, `a package named in ${lockfile}`);
      }
      if (isPlainObject(entry) && entry.link === true && typeof entry.resolved === 'string') {
        add(entry.resolved, `a link named in ${lockfile}`);
      }
    }
    // Lockfile version 1: `file:` versions of dependencies, at any depth.
    const walk = (dependencies: unknown, depth: number): void => {
      if (!isPlainObject(dependencies) || depth > 64) return;
      for (const entry of Object.values(dependencies)) {
        if (!isPlainObject(entry)) continue;
        const local = typeof entry.version === 'string' ? /^file:(.*)$/.exec(entry.version)?.[1] : undefined;
        if (local) add(local, `a dependency named in ${lockfile}`);
        walk(entry.dependencies, depth + 1);
      }
    };
    walk(lock.dependencies, 0);
  }
  return [...found].map(([path, what]) => ({ path, what }));
}

/** Directory entries read for one project's links, over node_modules and workspace globs. */
const MAX_ENTRIES = 100_000;
/** Places one project may name besides its installed packages (a monorepo names a few hundred). */
const MAX_REFERENCES = 10_000;

// The symbolic links in `dir` and the directories below it, `depth` levels down (a level's
// directories that are not links, those `descend` accepts), within the budget: past it the call is
// refused.
function linksBelow(
  dir: string,
  depth: number,
  budget: { entries: number },
  descend: (name: string) => boolean = () => true,
): string[] {
  const links: string[] = [];
  const walk = (at: string, left: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return;
    }
    budget.entries -= entries.length;
    if (budget.entries < 0) {
      throw new BridgeError(
        'invalid_arguments',
        `refused: the project's node_modules and workspaces hold more than ${MAX_ENTRIES.toLocaleString('en-US')} entries, too many to check for links leading out of the roots`,
      );
    }
    for (const entry of entries) {
      const path = join(at, entry.name);
      if (entry.isSymbolicLink()) links.push(path);
      else if (entry.isDirectory() && left > 1 && descend(entry.name)) walk(path, left - 1);
    }
  };
  walk(dir, depth);
  return links;
}

// The directory a glob stands for: what comes before the segment holding its first wildcard.
function staticPart(reference: string): string {
  const wildcard = reference.search(/[*?[\]{}!]/);
  if (wildcard < 0) return reference;
  const slash = reference.lastIndexOf('/', wildcard);
  return slash < 0 ? '.' : reference.slice(0, slash) || '/';
}

function readJson(path: string): unknown {
  const text = readProjectFile(path, MAX_FILE_BYTES, () =>
    unreadable(path, `it is over ${MAX_FILE_BYTES / 1048576} MiB`),
  );
  if (text === undefined) return undefined;
  // npm takes a byte order mark before the JSON; so must what checks what it names.
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw unreadable(path, `it is not JSON (${(error as Error).message})`);
  }
}

// A project file npm would read but the bridge cannot check: the call is refused rather than run
// with what it names unchecked.
function unreadable(path: string, why: string): BridgeError {
  return new BridgeError(
    'invalid_arguments',
    `refused: the project file ${quote(path)} cannot be checked for the places it names (${why}), so npm is not run on it`,
  );
}
