import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cacheDir, isSealed, readOwnFile, sealJson, writeOwnFile } from '../../src/index.js';
import type { CliSpec } from './cli-spec.js';
import type { Overlay } from './load-overlay.js';

/** Bumped when discovery changes what it produces, so old cache entries are ignored. */
const DISCOVERY_VERSION = 6;

/**
 * The cache file of one discovery, keyed by the binary's path, size and modification time (of the
 * file a symbolic link points to), and by which subcommands were asked for: upgrading the program
 * (or asking for other commands) misses the cache instead of serving stale tools. The overlay is
 * part of the key too: discovery keeps its `endOfOptions` in the spec, so editing the overlay must
 * rediscover. Computing the key runs nothing, so a cached start spawns no process.
 */
export function cacheFile(
  binary: string,
  requested: readonly string[] | undefined,
  overlay?: Overlay,
): string {
  const stat = statSync(binary);
  const key = JSON.stringify([
    DISCOVERY_VERSION,
    binary,
    realpathSync(binary),
    stat.size,
    stat.mtimeMs,
    stat.ino,
    requested ?? null,
    overlay ? createHash('sha256').update(JSON.stringify(overlay)).digest('hex') : null,
  ]);
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return join(cacheDir(), 'cli', `${basename(binary).replace(/[^\w.-]/g, '_')}-${hash}.json`);
}

/**
 * The cached spec of `binary`, or undefined when absent, unreadable or not of that shape (a corrupt
 * file is just a miss). Its `binary` is what every call runs: one naming another program is a miss too.
 */
export function readCachedSpec(file: string, binary: string): CliSpec | undefined {
  try {
    // Only a file this user owns and no one else can write: it says which commands tools run.
    const text = readOwnFile(file).toString('utf8');
    // Sealed when written: a damaged byte that leaves JSON (a subcommand's name) is a miss too.
    if (!isSealed(text)) return undefined;
    const { sha256: _, ...spec } = JSON.parse(text) as CliSpec & { sha256: string };
    const wellFormed =
      spec?.binary === binary &&
      Array.isArray(spec.skipped) &&
      Array.isArray(spec.commands) &&
      spec.commands.every(
        (command) =>
          Array.isArray(command?.path) &&
          Array.isArray(command.options) &&
          Array.isArray(command.positionals),
      );
    return wellFormed ? spec : undefined;
  } catch {
    return undefined;
  }
}

/** Writes for this user only and atomically (temp file + rename): see `writeOwnFile`. */
export function writeCachedSpec(file: string, spec: CliSpec): void {
  writeOwnFile(file, sealJson(JSON.stringify(spec)));
}
