import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { BridgeError } from '../../src/index.js';

/**
 * The executable behind `program`: a path (relative to `baseDir`) or a name on PATH, as an
 * absolute path. Symbolic links are not resolved: a program run through one (an npm
 * `node_modules/.bin/tsc` entry, `git` linked to a wrapper) is named and recognised by the name
 * it was invoked by, not by its target file (`tsc.js`, `mcp-server.js`).
 */
export function findProgram(program: string, baseDir: string): string {
  const candidates = program.includes('/')
    ? [isAbsolute(program) ? program : resolve(baseDir, program)]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => resolve(baseDir, join(dir, program)));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (!statSync(candidate).isFile()) continue;
      return candidate;
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
