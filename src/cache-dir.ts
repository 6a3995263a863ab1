import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Where adapters keep what they can reuse across starts (CLI discovery, OpenAPI conversion), each in
 * a subdirectory of its own: `$BRIDGE_CACHE_DIR`, else `$XDG_CACHE_HOME/bridge`, else `~/.cache/bridge`.
 */
export function cacheDir(): string {
  if (process.env.BRIDGE_CACHE_DIR) return process.env.BRIDGE_CACHE_DIR;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'bridge');
}

/**
 * A cache file's bytes, when this user owns the file and no one else can write it. The bridge acts
 * on what its caches say (the commands a CLI tool runs, where an OpenAPI tool sends its requests, the
 * bytecode it executes), so a file another local user could have written into a shared cache
 * directory is refused: it throws an `EACCES` error saying so. Otherwise throws as `readFileSync`.
 * Checked on the open file, so a file swapped in after the check is not the one read. A symlink (to
 * some other file of this user) is not followed, and a FIFO or device is refused without waiting on
 * it. Where there are no user ids (Windows), the directory's access rules decide.
 */
export function readOwnFile(path: string): Buffer {
  // O_NOFOLLOW and O_NONBLOCK are undefined on Windows: plain O_RDONLY there.
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw Object.assign(new Error(`${path} is not a regular file; it is not used`), { code: 'EACCES' });
    }
    if (typeof process.getuid === 'function' && (stat.uid !== process.getuid() || stat.mode & 0o022)) {
      throw Object.assign(
        new Error(`${path} belongs to another user or others can write it; it is not used`),
        { code: 'EACCES' },
      );
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a cache file for this user only (directory `0700`, file `0600`), atomically: a temp file
 * of this process renamed into place, so that concurrent starts never read half a file. Throws when
 * it cannot be written (the temp file is removed).
 */
export function writeOwnFile(path: string, data: string | Uint8Array): void {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Created, never opened if it exists (a symlink planted under the name would be written through).
    writeFileSync(temp, data, { mode: 0o600, flag: 'wx' });
    renameSync(temp, path);
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {}
    throw error;
  }
}
