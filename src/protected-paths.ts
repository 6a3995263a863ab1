import { lstatSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { cacheDir } from './cache-dir.js';

// The files and directories that decide what the bridge itself serves and runs: its config file
// and the specs, schemas and operation files its sources read (a hot reload applies them: a caller
// who could rewrite the config through a CLI tool could add any program as a source), and its
// cache directory (the CLI discovery and OpenAPI conversion caches, and the V8 code cache, whose
// bytecode runs as the bridge). No command run for a caller may name them, whatever its roots say
// (`protectedPathOf`). A command can still reach them without naming them (`cp x .` into the
// config's directory, `tar -C`), so each command run is also watched (`commandStarted`): what it
// changed of them is known once it has ended, a hot reload does not apply a file a command changed
// (`changedByCommands`), and cache files a command wrote or changed are removed.

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
  for (const path of allProtected()) {
    const rel = relative(path, real);
    if (rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))) return path;
  }
  return undefined;
}

/** Every protected path that exists, by its real path (for a sandbox to bind read-only). */
export function existingProtectedPaths(): string[] {
  const found = new Set<string>();
  for (const path of allProtected()) {
    try {
      found.add(realpathSync(path));
    } catch {
      // Not there (yet): nothing to bind.
    }
  }
  return [...found];
}

/** Protected paths a command changed, with the command that did: kept until the bridge restarts. */
const changed = new Map<string, string>();
let running = 0;
let idle: { promise: Promise<void>; resolve: () => void } | undefined;

/**
 * Called as a command starts; the function it returns, once every process of the command is
 * gone. Protected files it changed are recorded (see `changedByCommands`); cache files it wrote
 * or changed are removed, so that no start or reload reads them.
 */
export function commandStarted(label: string): () => void {
  const before = fingerprints();
  running++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    running--;
    const cache = realOrSelf(cacheDir());
    for (const [path, print] of fingerprints()) {
      if (before.get(path) === print) continue;
      if (path === cache || path.startsWith(`${cache}${sep}`)) {
        if (print !== 'dir' && print !== 'missing') rmSync(path, { force: true });
      } else {
        changed.set(path, label);
      }
    }
    if (running === 0 && idle) {
      idle.resolve();
      idle = undefined;
    }
  };
}

/**
 * Once no command is running, the protected paths commands have changed since the bridge started
 * (path → the command), so that a hot reload can refuse what a caller may have written.
 */
export async function changedByCommands(): Promise<ReadonlyMap<string, string>> {
  if (running > 0) {
    if (!idle) {
      let resolve = () => {};
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      idle = { promise, resolve };
    }
    await idle.promise;
  }
  return changed;
}

function allProtected(): string[] {
  return [realOrSelf(cacheDir()), ...protectedPaths];
}

// What a command could have changed: each protected file (inode, size, modification time), and
// every entry of the cache directory two levels down (a cache has tens of files).
function fingerprints(): Map<string, string> {
  const prints = new Map<string, string>();
  const cache = realOrSelf(cacheDir());
  for (const path of protectedPaths) prints.set(realOrSelf(path), fingerprint(realOrSelf(path)));
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      const print = fingerprint(path);
      prints.set(path, print);
      if (print === 'dir' && depth < 2) walk(path, depth + 1);
    }
  };
  walk(cache, 1);
  return prints;
}

function fingerprint(path: string): string {
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() ? 'dir' : `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.mode}`;
  } catch {
    return 'missing';
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
