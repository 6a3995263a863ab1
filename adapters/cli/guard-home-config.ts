import { homedir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { BridgeError, inside, type Logger, quote, realOrSelf } from '../../src/index.js';

/**
 * What programs read from the top of the home directory to decide what to run, where to connect
 * or who to be: a path argument naming one (or anything below a directory listed) is refused, for
 * writing (a later, unrelated command would obey it) and for reading (credentials). Compared
 * without case. Only what is named is seen: a download named by its URL, a checkout or an archive
 * can still write them, which is why a root holding the home directory is warned about.
 */
const HOME_CONFIG = new Set([
  // The programs with overlays, and what they run (ssh for git, gpg-agent's pinentry for gpg);
  // ~/.config holds git's config/attributes/ignore, curl's curlrc and most XDG-configured CLIs.
  '.curlrc',
  '.wgetrc',
  '.sqliterc',
  '.gitconfig',
  '.npmrc',
  '.jq',
  '.config',
  '.ssh',
  '.gnupg',
  // Credentials curl, git and npm read.
  '.netrc',
  '.git-credentials',
  // Configuration that names programs to run for credentials (kubectl's exec plugins, docker's
  // credsStore, the AWS CLI's credential_process), for the Cobra CLIs the bridge serves.
  '.kube',
  '.docker',
  '.aws',
  // Run by the next shell the user opens (Debian's ~/.bashrc sources ~/.bash_aliases), or put on
  // its PATH by ~/.profile (~/bin, ~/.local/bin: a program there runs in place of one it names).
  '.bash_aliases',
  '.zlogout',
  'bin',
  '.local',
  '.profile',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.zshenv',
  '.zprofile',
  '.zshrc',
  '.zlogin',
]);

let ownHome: string | undefined;

/**
 * The entry of the home directory's configuration that `real` is or lies below, when a root holds
 * the home directory (a root inside ~/.config chose to serve it), else undefined.
 */
function homeConfigOf(real: string, roots: readonly string[]): string | undefined {
  ownHome ??= realOrSelf(homedir());
  const home = ownHome;
  if (!inside(real, home) || !roots.some((root) => inside(home, root))) return undefined;
  const first = relative(home, real).split(sep)[0];
  return first && HOME_CONFIG.has(first.toLowerCase()) ? join(home, first) : undefined;
}

/**
 * The refusal of a path argument (`where`, given as `value`, resolving to `real`) that is the home
 * directory's configuration, or undefined. `value` is left out for `cwd`, which is `real` itself.
 */
export function refuseHomeConfig(
  roots: readonly string[],
  where: string,
  real: string,
  value?: string,
): BridgeError | undefined {
  const config = homeConfigOf(real, roots);
  if (!config) return undefined;
  const named = value === undefined ? `${where} ${real} is` : `${where} ${quote(value)} resolves to`;
  const what = real === config ? real : `${real}, inside ${config},`;
  const instead = value === undefined ? 'set cwd elsewhere' : 'name a file elsewhere';
  return new BridgeError(
    'invalid_arguments',
    `refused: ${named} ${what} which programs read from the home directory (configuration a later command would obey, or credentials); ${instead}, or root a project directory rather than the home directory`,
  );
}

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
