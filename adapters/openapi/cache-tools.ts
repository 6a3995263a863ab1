import { createHash } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cacheDir,
  isSealed,
  LISTED_JSON_FORMAT,
  type Logger,
  readOwnFile,
  writeOwnFile,
} from '../../src/index.js';
import {
  type CachedTool,
  encode,
  type Head,
  problem as layoutProblem,
  lazyTools,
  split,
} from './cache-layout.js';
import type { ServerFields } from './operations-to-tools.js';

export type { CachedTool } from './cache-layout.js';

/**
 * Bumped whenever conversion changes what it produces, or the file's layout (cache-layout.ts)
 * changes, so that older cache files are ignored.
 */
const CACHE_FORMAT = 22;

/** A file the tools came from: its SHA-256, and its size, mtime, ctime and inode when it was hashed. */
export type CachedFile = [path: string, sha256: string, stat: string];

/** Everything `load` needs to serve a spec again without reading it as OpenAPI. */
export interface CachedConversion {
  format: number;
  bridge: string;
  /** The local files the tools were built from (the spec first): content hash, and what `stat` said. */
  files: CachedFile[];
  servers: ServerFields;
  schemes: Record<string, unknown>;
  title: string;
  /** Warnings of the conversion (unmatched overrides), repeated on every start. */
  warnings: string[];
  /** The operations whose own server is on another origin than the API's, with that origin. */
  elsewhere: [name: string, origin: string][];
  tools: CachedTool[];
}

/**
 * The cache of the tools converted from one local spec, beside the CLI discovery cache
 * (`$BRIDGE_CACHE_DIR`, else `$XDG_CACHE_HOME/bridge`, else `~/.cache/bridge`). The file is named
 * after the spec's path and the options that change conversion; inside, the content hash of every
 * file the tools came from decides whether it is still valid, so an edited spec (or a file it
 * references) is converted again, never served stale. A file whose size, nanosecond mtime and
 * ctime, and inode are all as they were when it was hashed is not read again.
 */
export function cacheFile(specPath: string, options: unknown): string {
  const key = createHash('sha256')
    .update(JSON.stringify([CACHE_FORMAT, LISTED_JSON_FORMAT, bridgeVersion(), specPath, options]))
    .digest('hex')
    .slice(0, 20);
  return join(cacheDir(), 'openapi', `${basename(specPath).replace(/[^\w.-]/g, '_')}-${key}.json`);
}

/**
 * The SHA-256 of a regular file's bytes with its `statOf` taken on the open file; undefined when it
 * is unreadable or not a regular file. This runs on the main thread: a FIFO put where a spec was is
 * never opened (that would release a writer waiting for a reader, and its bytes would then be lost),
 * nor waited on if one is swapped in between the two checks.
 */
export function hashFile(path: string): { sha256: string; stat: string } | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const stat = fstatSync(fd, { bigint: true });
      if (!stat.isFile()) return undefined;
      return { sha256: createHash('sha256').update(readFileSync(fd)).digest('hex'), stat: stamp(stat) };
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * `statOf`, or undefined when the file cannot be read or is not a regular file. A spec read from a
 * pipe (`bridge openapi <(curl …)`) therefore never enters the cache, nor is looked up in it: its
 * path names another pipe on every start.
 */
export function statFile(path: string): string | undefined {
  try {
    return statOf(path);
  } catch {
    return undefined;
  }
}

/**
 * Size, modification and change times (nanoseconds) and inode of a regular file: what changes when
 * it is written. The change time is the one a program cannot set: an edit whose modification time
 * is put back (`touch -r`, an editor or a sync tool keeping times) still moves it. Throws for
 * anything but a regular file.
 */
function statOf(path: string): string {
  const stat = statSync(path, { bigint: true });
  if (!stat.isFile()) throw new Error(`${path} is not a regular file`);
  return stamp(stat);
}

const stamp = (stat: BigIntStats) => `${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}`;

// Unchanged size, mtime, ctime and inode: the same bytes (a 13 MB spec is not read and hashed again);
// anything else is decided by the content hash, so a touched but identical spec still hits.
function unchanged([path, sha256, stat]: CachedFile): boolean {
  try {
    if (statOf(path) === stat) return true;
  } catch {
    return false;
  }
  return hashFile(path)?.sha256 === sha256;
}

/**
 * The cached conversion when it is whole, of this format and bridge version, and every file it was
 * built from still has the same content; otherwise undefined, with a debug log saying why (a corrupt,
 * truncated or foreign file is simply rebuilt).
 */
export function readCache(file: string, specPath: string, log: Logger): CachedConversion | undefined {
  let head: Record<string, unknown>;
  let headText: string;
  let body: Buffer;
  try {
    // Only a file this user owns and no one else can write: it says where requests go.
    ({ head, headText, body } = split(readOwnFile(file)));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    if (!missing)
      log.debug('openapi: conversion cache unreadable, converting again', { file, error: String(error) });
    return undefined;
  }
  const why =
    problem(head, specPath) ??
    (isSealed(headText) ? undefined : 'corrupt: its head does not match its checksum') ??
    layoutProblem(head as unknown as Head, body);
  if (why) {
    const unreadable = why.startsWith('truncated') || why.startsWith('corrupt');
    log.debug(
      `openapi: conversion cache ${unreadable ? 'unreadable' : 'ignored'} (${why}), converting again`,
      {
        file,
      },
    );
    return undefined;
  }
  const cached = head as unknown as CachedConversion & Head;
  for (const entry of cached.files) {
    if (!unchanged(entry)) {
      log.debug('openapi: the spec changed since it was cached, converting again', {
        file,
        changed: entry[0],
      });
      return undefined;
    }
  }
  const { format, bridge, files, servers, schemes, title, warnings, elsewhere } = cached;
  return {
    format,
    bridge,
    files,
    servers,
    schemes,
    title,
    warnings,
    elsewhere,
    tools: lazyTools(cached, body),
  };
}

/**
 * Writes through `writeOwnFile`: for this user only, and atomically (a temp file of this process,
 * then rename), so concurrent starts never read half a file.
 */
export function writeCache(
  file: string,
  conversion: Omit<CachedConversion, 'format' | 'bridge'>,
  log: Logger,
): void {
  try {
    const { tools, ...meta } = conversion;
    const format = { format: CACHE_FORMAT, listed: LISTED_JSON_FORMAT, bridge: bridgeVersion() };
    writeOwnFile(file, encode({ ...format, ...meta }, tools));
  } catch (error) {
    log.debug('openapi: conversion cache not written', { file, error: String(error) });
  }
}

// What the head says about where the tools came from; the tool entries are checked by the layout.
function problem(cached: Record<string, unknown>, specPath: string): string | undefined {
  if (cached === null || typeof cached !== 'object' || Array.isArray(cached)) return 'not an object';
  if (cached.format !== CACHE_FORMAT) return `format ${String(cached.format)}, expected ${CACHE_FORMAT}`;
  // Each tool's first part is sent to clients as it is (see `keepListedJson`): only of this shape.
  if (cached.listed !== LISTED_JSON_FORMAT)
    return `listed entries of format ${String(cached.listed)}, expected ${LISTED_JSON_FORMAT}`;
  if (cached.bridge !== bridgeVersion()) return `written by bridge ${String(cached.bridge)}`;
  const files = cached.files;
  if (!Array.isArray(files) || files.length === 0) return 'no files';
  // Each is read as [path, sha256, stat] before the tools are (see `unchanged`).
  if (!files.every((entry) => Array.isArray(entry) && entry.every((part) => typeof part === 'string')))
    return 'incomplete file entry';
  // The files' hashes only say that what it was built from is unchanged: it must be this spec.
  if (!Array.isArray(files[0]) || files[0][0] !== specPath) return 'built from another spec';
  if (
    !Array.isArray(cached.tools) ||
    !cached.servers ||
    !Array.isArray(cached.warnings) ||
    !Array.isArray(cached.elsewhere)
  )
    return 'incomplete';
  return undefined;
}

let version: string | undefined;
/** This bridge's version from its package.json (found upwards from this module, built or bundled). */
function bridgeVersion(): string {
  if (version) return version;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5 && !version; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'mcp-source-bridge' && pkg.version) version = pkg.version;
  }
  version ??= 'unknown';
  return version;
}
