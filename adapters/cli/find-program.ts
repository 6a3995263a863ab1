import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { BridgeError } from '../../src/index.js';

/** The executable behind `program`: a path (relative to `baseDir`) or a name on PATH, links resolved. */
export function findProgram(program: string, baseDir: string): string {
  const candidates = program.includes('/')
    ? [isAbsolute(program) ? program : resolve(baseDir, program)]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, program));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (!statSync(candidate).isFile()) continue;
      return realpathSync(candidate);
    } catch {
      // not here: try the next directory
    }
  }
  throw new BridgeError(
    'load_failed',
    program.includes('/')
      ? `program "${program}" is not an executable file`
      : `program "${program}" was not found on PATH; install it or pass its path`,
  );
}
