import { closeSync, constants, fstatSync, openSync, read, readSync } from 'node:fs';
import { Socket } from 'node:net';
import { mebibytes } from './count-of.js';
import { BridgeError } from './errors.js';

// The files a user names (a spec, a config, a schema, operation documents, an overlay, tokens) are
// regular files or pipes (`bridge openapi <(curl …)`, a FIFO made with mkfifo). Opening a FIFO
// waits for a writer and reading it waits for data, either for ever: done in libuv's thread pool,
// such a wait outlived the process's own end (exiting joins those threads), so a bridge stopped
// with SIGTERM while waiting hung instead; done on the main thread it held signals too. Here a
// file is opened without blocking, a pipe is read through the event loop (it can be given up at
// any time), a device, socket or directory is refused (`/dev/zero` would be read without end),
// and nothing larger than the caller's bound is read.

export interface ReadInputOptions {
  /** What the file is, for messages: "the OpenAPI spec", "the config file". */
  what: string;
  /** The largest file read; a larger one (or a pipe that sends more) fails. */
  maxBytes: number;
  /** Bytes to leave unused after the content, in the same memory (see `InputBytes`). */
  spare?: number;
  /** Gives up the read (a pipe's writer may never come). */
  signal?: AbortSignal;
}

/** A file's bytes, followed in their memory by `spare` bytes that are the caller's own. */
export interface InputBytes {
  bytes: Buffer;
  spare: number;
}

/**
 * The bytes of the regular file or pipe at `path`, read within `options.maxBytes`. Throws a
 * `BridgeError` (`invalid_input`) naming the file and why: missing, not readable, a device, a
 * socket or a directory, too large; the abort reason when `options.signal` ends the wait.
 */
export async function readInputFile(path: string, options: ReadInputOptions): Promise<InputBytes> {
  const { fd, pipe, size } = openInput(path, options);
  if (pipe) return readPipe(fd, path, options);
  try {
    return await readRegular(fd, size, path, options);
  } catch (error) {
    throw error instanceof BridgeError ? error : cannotRead(path, options, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * `readInputFile` for a caller that cannot wait: a pipe is read with blocking reads, so only use it
 * before the bridge takes signals (a user's Ctrl-C still ends the process then).
 */
export function readInputFileSync(path: string, options: Omit<ReadInputOptions, 'signal' | 'spare'>): Buffer {
  const { fd, pipe } = openInput(path, options);
  if (!pipe) return readAll(fd, path, options);
  // Opened again without O_NONBLOCK (a non-blocking read of an empty pipe fails with EAGAIN), and
  // checked again: what is at the path now must still be a pipe.
  closeSync(fd);
  let blocking: number;
  try {
    blocking = openSync(path, 'r');
  } catch (error) {
    throw cannotRead(path, options, error);
  }
  if (!fstatSync(blocking).isFIFO()) {
    closeSync(blocking);
    throw notFileOrPipe(path, options);
  }
  return readAll(blocking, path, options);
}

function openInput(
  path: string,
  options: Pick<ReadInputOptions, 'what'>,
): { fd: number; pipe: boolean; size: number } {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw cannotRead(path, options, error);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() || stat.isFIFO()) return { fd, pipe: stat.isFIFO(), size: stat.size };
  } catch (error) {
    closeSync(fd);
    throw cannotRead(path, options, error);
  }
  closeSync(fd);
  throw notFileOrPipe(path, options);
}

const notFileOrPipe = (path: string, options: Pick<ReadInputOptions, 'what'>) =>
  new BridgeError(
    'invalid_input',
    `cannot read ${options.what} ${path}: it is not a regular file or a pipe (a device, a socket or a directory)`,
  );

function cannotRead(path: string, options: Pick<ReadInputOptions, 'what'>, error: unknown): BridgeError {
  const code = (error as NodeJS.ErrnoException).code;
  // Opening a UNIX socket fails before anything can look at what it is.
  if (code === 'ENXIO') return notFileOrPipe(path, options);
  const why =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'ENOTDIR'
            ? 'a part of the path is not a directory'
            : undefined;
  // The system error only repeats what `why` says (and the path): it is not chained as a cause.
  if (why) return new BridgeError('invalid_input', `cannot read ${options.what} ${path}: ${why}`);
  return new BridgeError('invalid_input', `cannot read ${options.what} ${path}`, { cause: error });
}

const tooLarge = (path: string, options: Pick<ReadInputOptions, 'what' | 'maxBytes'>) =>
  new BridgeError(
    'invalid_input',
    `cannot read ${options.what} ${path}: it is larger than ${mebibytes(options.maxBytes)}`,
  );

// A regular file in one buffer with `spare` bytes or more after it: one read, and one more that
// finds the end, for a file whose size does not change meanwhile (`readFile` reads 512 KiB at a
// time, each a round trip through the event loop). A file that grows while read is read on.
async function readRegular(
  fd: number,
  size: number,
  path: string,
  options: ReadInputOptions,
): Promise<InputBytes> {
  const spare = options.spare ?? 0;
  if (size > options.maxBytes) throw tooLarge(path, options);
  const probeSize = Math.max(spare, 64 * 1024);
  let buffer = Buffer.allocUnsafeSlow(Math.max(size, probeSize) + spare);
  let length = 0;
  for (;;) {
    let room = buffer.length - spare - length;
    if (room === 0) {
      const probe = Buffer.allocUnsafe(probeSize);
      const more = await readInto(fd, probe, 0, probeSize);
      if (more === 0) break;
      if (length + more > options.maxBytes) throw tooLarge(path, options);
      const larger = Buffer.allocUnsafeSlow(2 * (length + more) + spare);
      buffer.copy(larger, 0, 0, length);
      probe.copy(larger, length, 0, more);
      buffer = larger;
      length += more;
      room = buffer.length - spare - length;
    }
    const bytesRead = await readInto(fd, buffer, length, room);
    if (bytesRead === 0) break;
    length += bytesRead;
    if (length > options.maxBytes) throw tooLarge(path, options);
  }
  return { bytes: buffer.subarray(0, length), spare: buffer.length - length };
}

function readInto(fd: number, buffer: Buffer, offset: number, length: number): Promise<number> {
  return new Promise((done, fail) => {
    read(fd, buffer, offset, length, null, (error, bytesRead) => (error ? fail(error) : done(bytesRead)));
  });
}

// A pipe read through the event loop (as a stdin pipe is): nothing waits in the thread pool, and
// the socket, which owns `fd` from here on, is destroyed on abort, on excess and at the end.
function readPipe(fd: number, path: string, options: ReadInputOptions): Promise<InputBytes> {
  return new Promise((resolve, reject) => {
    let socket: Socket;
    try {
      socket = new Socket({ fd, readable: true, writable: false });
    } catch (error) {
      closeSync(fd);
      reject(cannotRead(path, options, error));
      return;
    }
    const chunks: Buffer[] = [];
    let length = 0;
    const { signal } = options;
    const finish = (error?: unknown) => {
      signal?.removeEventListener('abort', abort);
      socket.destroy();
      if (error !== undefined) {
        reject(error);
        return;
      }
      const spare = options.spare ?? 0;
      const buffer = Buffer.allocUnsafeSlow(length + spare);
      let at = 0;
      for (const chunk of chunks) at += chunk.copy(buffer, at);
      resolve({ bytes: buffer.subarray(0, length), spare });
    };
    const abort = () => finish(signal?.reason);
    if (signal?.aborted) {
      abort();
      return;
    }
    signal?.addEventListener('abort', abort, { once: true });
    socket.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > options.maxBytes) {
        finish(tooLarge(path, options));
        return;
      }
      chunks.push(chunk);
    });
    socket.once('end', () => finish());
    socket.once('error', (error) => finish(cannotRead(path, options, error)));
  });
}

// Blocking reads to the end, within the bound.
function readAll(fd: number, path: string, options: Pick<ReadInputOptions, 'what' | 'maxBytes'>): Buffer {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > options.maxBytes) throw tooLarge(path, options);
      chunks.push(chunk.subarray(0, bytesRead));
    }
  } catch (error) {
    if (error instanceof BridgeError) throw error;
    throw cannotRead(path, options, error);
  } finally {
    closeSync(fd);
  }
  return Buffer.concat(chunks, length);
}
