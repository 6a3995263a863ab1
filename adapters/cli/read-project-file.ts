import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/**
 * The text of the regular file at `path`, read on the spot: not through a link (one leading out
 * of the roots is refused as a project file before the program runs), and a FIFO or a device
 * planted at the name is neither waited for nor read. Undefined when there is no such file to
 * read; throws what `tooLarge` makes when it holds more than `maxBytes`.
 */
export function readProjectFile(path: string, maxBytes: number, tooLarge: () => Error): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    if (stat.size > maxBytes) throw tooLarge();
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    for (let count = -1; count !== 0 && read < buffer.length; read += count) {
      count = readSync(fd, buffer, read, buffer.length - read, read);
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
