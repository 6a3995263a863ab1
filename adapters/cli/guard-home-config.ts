import { homedir } from 'node:os';
import { inside, type Logger, realOrSelf } from '../../src/index.js';

/**
 * Warns when a root holds the user's home directory: programs read their own configuration there
 * (git's ~/.gitconfig, npm's ~/.npmrc, ssh's ~/.ssh/config), so one command can write a file that
 * a later, unrelated command obeys, running programs or reading files no argument names.
 */
export function warnOfHomeInRoots(program: string, roots: readonly string[], log: Logger): void {
  const home = realOrSelf(homedir());
  const root = roots.find((candidate) => inside(home, candidate));
  if (root === undefined) return;
  log.warn(
    `cli ${program}: the root ${root} holds the home directory ${home}, where programs read their configuration (~/.gitconfig, ~/.npmrc, ~/.ssh/config, ~/.config/…): a command can write one there that later commands obey, running programs or reading files outside the roots. Root a project directory instead (--root DIR), or use --sandbox so that what such a file runs writes nothing outside the roots`,
  );
}
