// The two halves of the path check on their own: where a value really leads (symbolic links
// followed as the kernel follows them), and which arguments are paths (labelled help-text cases).
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CommandSpec, OptionSpec } from '../../adapters/cli/cli-spec.js';
import { confinePaths } from '../../adapters/cli/confine-paths.js';
import { realPathOf } from '../../adapters/cli/follow-links.js';
import { inferPaths } from '../../adapters/cli/infer-paths.js';
import { parseHelpOptions } from '../../adapters/cli/parse-help.js';
import { tempDir } from '../cli/helpers.js';

const dir = tempDir('bridge-resolve-');
afterAll(() => dir[Symbol.dispose]());
const d = dir.path;
mkdirSync(join(d, 'root', 'sub'), { recursive: true });
mkdirSync(join(d, 'out', 'deep'), { recursive: true });
symlinkSync(join(d, 'out', 'deep'), join(d, 'root', 'to-deep'));
symlinkSync('../out', join(d, 'root', 'relative-out'));
symlinkSync('to-deep/..', join(d, 'root', 'link-with-dots'));
symlinkSync(join(d, 'root', 'chain-2'), join(d, 'root', 'chain-1'));
symlinkSync(join(d, 'out'), join(d, 'root', 'chain-2'));
symlinkSync(join(d, 'out', 'not-yet'), join(d, 'root', 'dangling'));
symlinkSync('loop-b', join(d, 'root', 'loop-a'));
symlinkSync('loop-a', join(d, 'root', 'loop-b'));

describe('realPathOf', () => {
  it.each([
    ['a plain path', 'root/sub/file', 'root/sub/file'],
    ['.. as text', 'root/sub/../../out/x', 'out/x'],
    ['a link then ..', 'root/to-deep/../x', 'out/x'],
    ['a relative link', 'root/relative-out/x', 'out/x'],
    ['a link whose target holds link/..', 'root/link-with-dots/x', 'out/x'],
    ['a chain of links', 'root/chain-1/x', 'out/x'],
    ['a dangling link, followed to where it points', 'root/dangling', 'out/not-yet'],
    ['below a missing directory, .. as text', 'root/missing/../../out/y', 'out/y'],
    ['a missing directory, .., then a link (mkdir -p follows it)', 'root/missing/../to-deep/x', 'out/deep/x'],
    ['two missing levels, .. twice, then a link', 'root/missing/deeper/../../to-deep/x', 'out/deep/x'],
    ['a link below a missing directory is no link', 'root/missing/../missing/to-deep/../x', 'root/missing/x'],
  ])('%s', (_label, path, expected) => {
    expect(realPathOf(`${d}/${path}`)).toBe(join(d, expected));
  });

  it('stops on a link loop', () => {
    expect(() => realPathOf(join(d, 'root', 'loop-a', 'x'))).not.toThrow();
  });

  // Counting nesting only, `a0 -> a1/a1/a1/a1`, `a1 -> a2/a2/a2/a2`… took 4^N walks (twelve levels
  // held the server past 100 s); the kernel stops at 40 links in all, and so does the walk.
  it('follows at most 40 links in all, as the kernel does', () => {
    const fan = join(d, 'root', 'fan');
    mkdirSync(fan);
    const levels = 14;
    symlinkSync('.', join(fan, `a${levels}`));
    for (let level = levels - 1; level >= 0; level--) {
      symlinkSync(
        Array(4)
          .fill(`a${level + 1}`)
          .join('/'),
        join(fan, `a${level}`),
      );
    }
    expect(realPathOf(join(fan, 'a0', 'x')).startsWith(fan)).toBe(true);
  });
});

function command(help: string, usage = ''): CommandSpec {
  return {
    path: ['x'],
    description: '',
    usage,
    options: parseHelpOptions(help),
    positionals: [{ name: 'args', description: '', placement: 'operand' }],
  };
}

const kinds = (spec: CommandSpec, flavor: 'generic' | 'cobra' = 'generic') => {
  const [inferred] = inferPaths([spec], { flavor });
  return Object.fromEntries(
    (inferred?.options ?? []).map((option: OptionSpec) => [option.name, option.path ?? null]),
  );
};

describe('inferPaths on help texts', () => {
  it('GNU getopt', () => {
    const help = `Options:
  -o, --output=FILE        write to FILE
  -C, --directory=DIR      change to DIR
      --exclude-from=FILE  read patterns from FILE
  -n, --lines=NUM          print NUM lines
      --label=TEXT         a label
      --from=REV           start here
      --color[=WHEN]       colorize
`;
    expect(kinds(command(help))).toEqual({
      output: 'path',
      directory: 'path',
      'exclude-from': 'path',
      lines: null,
      label: null,
      from: 'path',
      color: null,
    });
  });

  it('one-word names ending in "file" or "dir" (jq), but not --profile', () => {
    const help = `Some of the options include:
  --rawfile a f    set variable $a to a string consisting of the contents of <f>;
  --slurpfile a f  set variable $a to an array of JSON texts read from <f>;
  --logdir x       where logs go
  --profile NAME   the profile to use
  --arg a v        set variable $a to value <v>;
`;
    expect(kinds(command(help))).toEqual({
      rawfile: 'path',
      slurpfile: 'path',
      logdir: 'path',
      profile: null,
      arg: null,
    });
  });

  it('Cobra (pflag), where the placeholder is a type', () => {
    const help = `Flags:
      --kubeconfig string    Path to the kubeconfig file to use for CLI requests.
  -f, --filename strings     Filename, directory, or URL to files
      --cert-file string     client certificate
      --namespace string     the namespace
      --source-ref string    the reference
      --repo string          repository to use
`;
    expect(kinds(command(help), 'cobra')).toEqual({
      kubeconfig: 'path',
      filename: 'path',
      'cert-file': 'path',
      namespace: null,
      'source-ref': null,
      repo: 'location',
    });
  });

  it.each([
    ['cp [OPTION]... SOURCE DEST', 'location'],
    ['cat [OPTION]... [FILE]...', 'location'],
    ['kubectl cp <file-spec-src> <file-spec-dest>', 'location'],
    ['gh api <endpoint> [flags]', undefined],
    ['', 'location'],
  ])('operands of "%s"', (usage, expected) => {
    const [inferred] = inferPaths([command('', usage)], { flavor: 'generic' });
    expect(inferred?.positionals[0]?.path).toBe(expected);
  });
});

describe('confinePaths on values that name a file indirectly', () => {
  const root = join(d, 'root');
  const policy = { roots: [root] };
  const spec: CommandSpec = {
    path: ['x'],
    description: '',
    options: [],
    positionals: [{ name: 'args', description: '', placement: 'operand', path: 'location' }],
  };
  const check = (value: string) => () =>
    confinePaths(spec, [], { args: [value] }, root, policy, undefined, { atFiles: true });

  it.each([
    ['a file: URL with one slash (curl reads it)', 'file:/etc/hostname'],
    ['a file: URL with .. and no slashes', 'file:../out/x'],
    ['a file:// URL', 'file:///etc/hostname'],
    ['an httpie upload, name@file', 'upload@/etc/hostname'],
    ['an httpie JSON field, name:=@file', 'field:=@/etc/hostname'],
    ['an httpie header, Header:@file', 'X-Token:@/etc/hostname'],
    ['a curl -F text field, name=<file', 'note=</etc/hostname'],
  ])('refuses %s', (_label, value) => {
    expect(check(value)).toThrow(/outside the allowed roots/);
  });

  it.each([
    ['a file: URL inside', 'file:sub/x'],
    ['name@file inside', 'upload@sub/x'],
    ['an e-mail address', 'someone@example.com'],
    ['a revision', '@{u}'],
  ])('allows %s', (_label, value) => {
    expect(check(value)).not.toThrow();
  });
});
