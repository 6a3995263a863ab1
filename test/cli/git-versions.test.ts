import { readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverGit } from '../../adapters/cli/discover-git.js';
import { parseHelpAll } from '../../adapters/cli/parse-git-help.js';
import { loadCli, tempDir } from './helpers.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/cli/git/', import.meta.url));
const VERSIONS = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const read = (version: string, file: string) => readFileSync(join(FIXTURES, version, file), 'utf8');

// git's category headings (help.c, main_categories): only lines under them describe commands.
const CATEGORIES = new Set([
  'Main Porcelain Commands',
  'Ancillary Commands / Manipulators',
  'Ancillary Commands / Interrogators',
  'Interacting with Others',
  'Low-level Commands / Manipulators',
  'Low-level Commands / Interrogators',
  'Low-level Commands / Syncing Repositories',
  'Low-level Commands / Internal Helpers',
  'User-facing repository, command and file interfaces',
  'Developer-facing file formats, protocols and other interfaces',
]);

/** The real text of `git help -a`, read independently of the adapter's parser. */
function truth(version: string): Map<string, string> {
  const map = new Map<string, string>();
  let heading = '';
  for (const line of read(version, 'help-a.txt').split('\n')) {
    if (line && !line.startsWith(' ')) heading = line;
    else if (CATEGORIES.has(heading) && line.startsWith('   ')) {
      const [name = '', ...rest] = line.trim().split(/ {3,}/);
      map.set(name, rest.join(' '));
    }
  }
  return map;
}

const cache = tempDir('bridge-cli-cache-');
const bin = tempDir('bridge-fake-git-');
const previous = { cache: process.env.BRIDGE_CACHE_DIR, version: process.env.FAKE_GIT_VERSION };
beforeAll(() => {
  process.env.BRIDGE_CACHE_DIR = cache.path;
  // Named `git` through a symbolic link, the way a wrapper or a package manager installs it.
  symlinkSync(join(FIXTURES, 'fake-git.sh'), join(bin.path, 'git'));
});
afterAll(() => {
  process.env.BRIDGE_CACHE_DIR = previous.cache;
  process.env.FAKE_GIT_VERSION = previous.version;
  cache[Symbol.dispose]();
  bin[Symbol.dispose]();
});

describe('git help -a of every recorded git version', () => {
  it('has the versions from 2.30 to the newest', () => {
    expect(VERSIONS).toEqual(expect.arrayContaining(['2.30.2', '2.39.5', '2.55.0']));
    expect(VERSIONS.length).toBeGreaterThanOrEqual(5);
  });

  describe.each(VERSIONS)('git %s', (version) => {
    const real = truth(version);
    const commands = new Set(read(version, 'list-cmds-main.txt').split('\n').filter(Boolean));

    it('reads every description of the verbose listing, and nothing from the aliases', () => {
      expect(real.size).toBeGreaterThan(100);
      expect(Object.fromEntries(parseHelpAll(read(version, 'help-a.txt')))).toEqual(Object.fromEntries(real));
    });

    it('never takes a column of the --no-verbose listing for a description', () => {
      for (const [name, description] of parseHelpAll(read(version, 'help-a-no-verbose.txt'))) {
        expect(description, name).toBe(real.get(name));
      }
    });

    it('describes each discovered command by its own text, never by a name or a placeholder', async () => {
      process.env.FAKE_GIT_VERSION = version;
      const found = await discoverGit({ binary: join(bin.path, 'git'), cwd: bin.path, commands: undefined });
      expect(found.skipped).toEqual([]);
      const tops = found.commands.filter((command) => command.path.length === 1);
      expect(tops.map((command) => command.path[0])).toEqual([...commands]);
      let described = 0;
      for (const command of tops) {
        const name = command.path[0] as string;
        expect(commands.has(command.description), `${name}: "${command.description}"`).toBe(false);
        expect(command.description).not.toMatch(/^Runs git/);
        const expected = real.get(name);
        if (expected !== undefined) {
          expect(command.description, name).toBe(expected);
          described++;
        } else {
          // Helpers git does not describe (checkout--worker, remote-http): their usage line.
          expect(command.description, name).toBe(`Usage: \`git ${name} [<options>] [--] [<pathspec>...]\``);
        }
      }
      expect(described).toBeGreaterThan(100);
    });
  });
});

describe('the served git tools of a git whose --no-verbose listing is in columns', () => {
  it('describe git_clean and git_checkout by their own text (git 2.39)', async () => {
    process.env.FAKE_GIT_VERSION = '2.39.5';
    using work = tempDir();
    await using cli = await loadCli(
      { program: join(bin.path, 'git'), allow: ['clean', 'checkout', 'pull'] },
      work.path,
    );
    const description = (name: string) => cli.registry.get(name)?.definition.description.split('\n')[0];
    expect(description('git_clean')).toBe('Remove untracked files from the working tree');
    expect(description('git_checkout')).toBe('Switch branches or restore working tree files');
    expect(description('git_pull')).toBe(
      'Fetch from and integrate with another repository or a local branch',
    );
    expect(cli.log.lines.filter((line) => line.startsWith('warning'))).toEqual([]);
  });
});
