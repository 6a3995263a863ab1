import { createHash } from 'node:crypto';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readOwnFile, writeOwnFile } from './cache-dir.js';

// The V8 code cache of the bundled command line: the bytecode V8 compiled for it in an earlier
// start, so that a start deserializes instead of parsing and compiling ~3 MB of JavaScript
// (Node 20 has no module compile cache of its own). Nothing here is trusted: the file carries the
// key it was made for and a checksum of its payload, both checked before V8 sees a byte, and V8
// itself rejects data made for another source or V8 build (`cachedDataRejected`). Cached bytecode
// runs as the bridge's own code, so a file someone else could have written is never used either.

/** File layout: magic, SHA-256 of the key, SHA-256 of the payload, then V8's cached data. */
const MAGIC = Buffer.from('bridge-code-cache-1\n');
const HEADER = MAGIC.length + 64;

/** What the cached data is only valid for. */
export interface CodeCacheKey {
  /** SHA-256 of the bundle's source, computed at build time. */
  bundle: string;
  /**
   * The bundle file's size and modification time (`size:mtimeNs`) as this start found it. The hash
   * above is the build's, not recomputed per start (hashing 3 MB costs more than the cache saves),
   * and V8 itself only compares the source's length: so a bundle edited by hand after the build,
   * even to the same length, must not run the bytecode of the old one.
   */
  file: string;
  /** Node's version and architecture: V8's bytecode is specific to both. */
  node: string;
  /** The flags Node runs with (execArgv, NODE_OPTIONS): V8 rejects data made under other flags. */
  flags: string;
  /** The first argument (`openapi`, `cli`…): each command compiles other functions, so each keeps its own. */
  command: string;
}

/**
 * The key of this process, running the bundle whose build-time SHA-256 is `bundle` and whose file
 * `stat` said `file` (see `CodeCacheKey.file`).
 */
export function currentKey(
  bundle: string,
  file: string,
  argv: string[] = process.argv.slice(2),
): CodeCacheKey {
  const first = argv[0] ?? '';
  return {
    bundle,
    file,
    node: `${process.version} ${process.arch} ${process.platform}`,
    flags: JSON.stringify([process.execArgv, process.env.NODE_OPTIONS ?? '']),
    command: /^[a-z]{1,16}$/.test(first) ? first : 'other',
  };
}

const digest = (data: string | Buffer) => createHash('sha256').update(data).digest();

/** Where the cached data for `key` lives: `<cache dir>/code/<command>-<hash of the key>.bin`. */
export function codeCacheFile(dir: string, key: CodeCacheKey): string {
  const name = `${key.command}-${digest(JSON.stringify(key)).toString('hex').slice(0, 20)}.bin`;
  return join(dir, 'code', name);
}

/**
 * The cached data stored for `key` when the file is whole and was written for exactly this key;
 * otherwise undefined (missing, truncated, corrupt or foreign files are all simply not used).
 */
export function readCodeCache(file: string, key: CodeCacheKey): Buffer | undefined {
  let bytes: Buffer;
  try {
    // Only a file this user owns and no one else can write (`readOwnFile`): bytecode runs as ours.
    bytes = readOwnFile(file);
  } catch {
    return undefined;
  }
  if (bytes.length <= HEADER || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const keyHash = bytes.subarray(MAGIC.length, MAGIC.length + 32);
  const payloadHash = bytes.subarray(MAGIC.length + 32, HEADER);
  if (!keyHash.equals(digest(JSON.stringify(key)))) return undefined;
  const payload = bytes.subarray(HEADER);
  // V8 checks little of the payload itself in release builds: a flipped byte must never reach it.
  return payloadHash.equals(digest(payload)) ? payload : undefined;
}

/**
 * Stores `data` for `key` through `writeOwnFile` (this user only; a temp file renamed into place, so
 * that two bridges starting at once never leave or read half a file). Failures are ignored: the
 * cache only saves time, and an unwritable cache directory must not stop the bridge.
 */
export function writeCodeCache(file: string, key: CodeCacheKey, data: Buffer): boolean {
  try {
    writeOwnFile(file, Buffer.concat([MAGIC, digest(JSON.stringify(key)), digest(data), data]));
  } catch {
    return false;
  }
  removeStale(dirname(file), file);
  return true;
}

/** Files not written for this long are removed when another is written (see `removeStale`). */
export const STALE_AFTER_MS = 7 * 24 * 3600 * 1000;

// Every build, Node upgrade or flag set writes files of its own, and a file in use is only read,
// never rewritten: so the files of the directory not written for a week go when a new one is (a
// start that still uses one writes it again, once). Only the cache's own names are touched.
function removeStale(dir: string, kept: string): void {
  try {
    const now = Date.now();
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === kept || !/^[a-z]{1,16}-[0-9a-f]{20}\.bin(\.\d+\.[0-9a-z]+\.tmp)?$/.test(name)) continue;
      if (now - statSync(path).mtimeMs > STALE_AFTER_MS) rmSync(path, { force: true });
    }
  } catch {
    // Tidying only: a directory that cannot be listed, or a file gone meanwhile, changes nothing.
  }
}
