import { lstatSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from './cache-dir.js';
import { inside, realOrSelf } from './real-path.js';

// The files and directories that decide what the bridge itself serves and runs: its config file
// and the specs, schemas and operation files its sources read (a hot reload applies them: a caller
// who could rewrite the config through a CLI tool could add any program as a source), and its
// cache directory (the CLI discovery and OpenAPI conversion caches, and the V8 code cache, whose
// bytecode runs as the bridge). No command run for a caller may name them, whatever its roots say
// (`protectedPathOf`). A command can still reach them without naming them (`cp x .` into the
// config's directory, `tar -C`), so each command run is also watched (`commandStarted`): what it
// changed of them is known once it has ended, a hot reload does not apply a file a command changed
// (`commandThatChanged`), and cache files a command wrote or changed are removed.

/** Each protected path as given, and its real path as it was when protected. */
const protectedPaths = new Map<string, string>();

/** Protects `paths` (files or directories) from now on, by the paths given and their real paths. */
export function protectPaths(paths: Iterable<string>): void {
  for (const path of paths) protectedPaths.set(path, realOrSelf(path));
}

/** The protected path that `real` (an absolute real path) is, or lies below; undefined if none. */
export function protectedPathOf(real: string): string | undefined {
  return allProtected().find((path) => inside(real, path));
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

/** Protected real paths a command changed, with the command that did: kept until the bridge restarts. */
const changed = new Map<string, string>();
let running = 0;
let idle: { promise: Promise<void>; resolve: () => void } | undefined;

/**
 * Called as a command starts; the function it returns, once every process of the command is
 * gone. Protected files it changed are recorded (see `commandThatChanged`); cache files it wrote
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
    const cache = realCacheDir();
    for (const [path, print] of fingerprints()) {
      if (before.get(path) === print) continue;
      if (inside(path, cache)) {
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

/** Commands being watched right now (see `commandStarted`). */
export function commandsRunning(): number {
  return running;
}

/**
 * Once no command is running, the first of `files` (protected ones) that a command changed since
 * the bridge started, and the command: what a hot reload must not apply.
 */
export async function commandThatChanged(
  files: readonly string[],
): Promise<{ file: string; command: string } | undefined> {
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
  for (const file of files) {
    const command = changed.get(protectedPaths.get(file) ?? realOrSelf(file));
    if (command !== undefined) return { file, command };
  }
  return undefined;
}

function allProtected(): string[] {
  return [realCacheDir(), ...protectedPaths.keys(), ...protectedPaths.values()];
}

let cacheReal: { dir: string; real: string } | undefined;
// The cache directory's real path, asked for every path argument of every command: resolved once
// it exists, again only when another directory is named.
function realCacheDir(): string {
  const dir = cacheDir();
  if (cacheReal?.dir === dir) return cacheReal.real;
  try {
    cacheReal = { dir, real: realpathSync(dir) };
    return cacheReal.real;
  } catch {
    return dir; // not there yet: nothing below it to resolve
  }
}

// What a command could have changed: each protected file (inode, size, modification and change
// times: `cp -p` or `touch -r` put the modification time back, never the change time), and
// every entry of the cache directory two levels down (a cache has tens of files).
function fingerprints(): Map<string, string> {
  const prints = new Map<string, string>();
  const cache = realCacheDir();
  for (const real of new Set(protectedPaths.values())) prints.set(real, fingerprint(real));
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
    return stat.isDirectory()
      ? 'dir'
      : `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.mode}`;
  } catch {
    return 'missing';
  }
}
