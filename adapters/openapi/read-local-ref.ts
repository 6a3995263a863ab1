import { constants } from 'node:fs';
import { open, readlink, realpath, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type $Refs, FileResolver, ResolverError } from '@apidevtools/json-schema-ref-parser';
import { describeError, displayUrl, inside } from '../../src/index.js';

// The local files a spec's `$ref`s point to, read for the parser in place of its own file resolver,
// which reads whatever path a reference names, from whichever document names it: a document
// fetched by URL (`--allow-remote-refs`) could copy the user's files into the tools with
// `$ref: file:///…`, and a reference to a device (`/dev/zero`) or a FIFO read without end. A local
// spec is someone else's work too: `default: {$ref: /proc/self/environ}` put the bridge's whole
// environment, the API's credentials with it, into a tool a model fills in and sends to the spec's
// own servers. So references are read only within one directory (the spec's own by default), by
// the real path of the file actually opened, and never under /proc, /sys or /dev.

/** What every referenced document of one load may still read, local files and fetches together. */
export interface ByteBudget {
  bytesLeft: number;
}

/** A resolver for the parser's `resolve.file` option, and the files it has read. */
export interface LocalRefResolver {
  resolver: {
    order: number;
    canRead: (file: { url: string }) => boolean;
    read: (file: RefFile, callback: unknown, $refs: $Refs) => Promise<Buffer>;
  };
  /** The paths of the files read, each once: what a reload watches. */
  files: string[];
}

/** What the parser tells a resolver of a reference (json-schema-ref-parser's `FileInfo`). */
interface RefFile {
  /** The referenced document, resolved: a path or a `file:` URL. */
  url: string;
  /** Where it was resolved from: the referring document (or an `$id` in it), with a pointer. */
  baseUrl?: string;
  /** The reference as written. */
  reference?: string;
}

/** Where local references may be read from: a directory, and the flag that widens it. */
export interface RefRoot {
  /** The directory (absolute) whose files, and their subdirectories' files, may be read. */
  dir: string;
  /** How the user sets another, for the refusal's message. */
  flag: string;
}

/**
 * The parser's resolver for local files. A reference is read only when it was reached from a local
 * document (the spec the user named, or a file it references): one from a document fetched by URL
 * is refused, naming both. Only regular files within `root` are read (no devices, FIFOs or
 * directories, nothing under /proc, /sys or /dev), counted against `budget`.
 */
export function localRefResolver(budget: ByteBudget, root: RefRoot): LocalRefResolver {
  const files: string[] = [];
  // The root's real path, found once: a link to it still names the same files.
  let rootReal: Promise<string> | undefined;
  return {
    files,
    resolver: {
      order: 100,
      // The parser's own test: a path, or a `file:` URL.
      canRead: (file) => (FileResolver.canRead as (file: unknown) => boolean)(file),
      read: async (file, _callback, $refs) => {
        const reference = file.reference ?? file.url;
        const from = file.baseUrl?.split('#')[0] ?? '';
        try {
          if (!reachedLocally(from, $refs)) {
            throw new Error(
              `${from ? displayUrl(from) : 'a document fetched by URL'} references the local file ${reference}: a document fetched by URL never makes the bridge read local files`,
            );
          }
          const path = localPath(file.url);
          rootReal ??= realpath(root.dir).catch(() => root.dir);
          const bytes = await readRegularFile(path, budget, { ...root, dir: await rootReal });
          if (!files.includes(path)) files.push(path);
          return bytes;
        } catch (error) {
          const message = describeError(error);
          const what = message.includes(reference) ? message : `${reference} (from ${from}): ${message}`;
          // The parser keeps the message only of its own error type ("Error reading file" otherwise).
          throw new ResolverError(new Error(what, { cause: error }), file.url);
        }
      },
    },
  };
}

// Whether a reference resolved against `from` comes from a local document. A path (the spec's own,
// or a file it references) is local; a URL of another scheme is a fetched document's. A `file:`
// base is a local document's too, unless a fetched document names one in an `$id` (a schema's
// `$id` sets the base its references resolve against, OpenAPI 3.1 and JSON Schema 2019-09+).
function reachedLocally(from: string, $refs: $Refs): boolean {
  if (from.startsWith('/') && !from.startsWith('//')) return true;
  if (!/^file:/i.test(from)) return false;
  const fetched = Object.values($refs.values('remote', 'http'));
  return !fetched.some((document) => declaresFileId(document, new Set()));
}

// Whether a fetched document holds an `$id` that is a `file:` URL. Relative ones resolve against
// the document's http(s) URL and stay there.
function declaresFileId(value: unknown, seen: Set<object>): boolean {
  if (value === null || typeof value !== 'object' || seen.has(value)) return false;
  seen.add(value);
  const id = (value as { $id?: unknown }).$id;
  if (typeof id === 'string' && isFileUrl(id)) return true;
  return Object.values(value).some((child) => declaresFileId(child, seen));
}

// As the parser resolves an `$id` (WHATWG URL parsing: spaces and controls around it, tabs and
// line breaks within are dropped).
function isFileUrl(id: string): boolean {
  try {
    return new URL(id, 'http://fetched.invalid/').protocol === 'file:';
  } catch {
    return false;
  }
}

// A resolved reference as a path: the parser gives paths percent-encoded, or `file:` URLs.
function localPath(url: string): string {
  if (/^file:/i.test(url)) return fileURLToPath(url);
  if (url.startsWith('/')) return fileURLToPath(new URL(url, 'file:///'));
  throw new Error('not an absolute path');
}

// A regular file's bytes, counted against the budget. Checked before it is opened (opening a FIFO
// waits for a writer; opening some devices acts on them) and again once open, in case the path was
// replaced in between; the descriptor is non-blocking for the same reason. Where the file is, is
// asked of the descriptor (what was opened, whatever links or renames led there).
async function readRegularFile(path: string, budget: ByteBudget, root: RefRoot): Promise<Buffer> {
  refuseOutside(await realpath(path), path, root);
  if (!(await stat(path)).isFile()) throw NOT_REGULAR();
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => realpath(path));
    refuseOutside(opened, path, root);
    const info = await handle.stat();
    if (!info.isFile()) throw NOT_REGULAR();
    const chunks: Buffer[] = [];
    for (;;) {
      // The size as stated, then a little more at a time for a file still growing.
      const chunk = Buffer.allocUnsafe(
        Math.max(1, Math.min(Math.max(info.size, 64 * 1024), budget.bytesLeft + 1)),
      );
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks);
      budget.bytesLeft -= bytesRead;
      if (budget.bytesLeft < 0) throw new Error(TOO_LARGE);
      chunks.push(chunk.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
}

/** Real paths no reference is read under, whatever the root: the kernel's views of the machine. */
const SYSTEM_DIRS = ['/proc', '/sys', '/dev'];

function refuseOutside(real: string, path: string, root: RefRoot): void {
  if (SYSTEM_DIRS.some((dir) => inside(real, dir))) {
    throw new Error(
      `${real} is a file of the system (under /proc, /sys or /dev): references never read those`,
    );
  }
  if (inside(real, root.dir)) return;
  const where = real === path ? '' : ` (${real})`;
  throw new Error(
    `${path}${where} is outside ${root.dir}: local references are read only within it (${root.flag} names another directory)`,
  );
}

const NOT_REGULAR = () =>
  new Error(
    'it is not a regular file (a device, a FIFO, a socket or a directory): references are read from regular files only',
  );

const TOO_LARGE = 'the referenced documents are larger than the bridge reads for one spec';
