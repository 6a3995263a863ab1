// Every path a command can read or write is confined to the roots (issue: CLI trust boundary).
// One row per attack, run through a real `bridge cli git` over stdio (v1 client) and HTTP (v2
// client), then again with --sandbox. Besides the refusal text, the world is checked: nothing
// written outside the roots, no outside content in any output, no process left behind.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, makeRepo, tempDir } from '../cli/helpers.js';
import { type ClientKind, connect, type TestClient } from '../helpers/connect.js';
import { BRIDGE_BIN, type Wire } from '../helpers/start-bridge.js';
import { processesUnder, snapshot } from './world.js';

const base = tempDir('bridge-sec-');
const cache = tempDir('bridge-cli-cache-');
const ROOT = join(base.path, 'root');
const OUT = join(base.path, 'outside');
const SECRET = `TOP-SECRET-${process.pid}-${Date.now()}`;
const SECRET_FILE = join(OUT, 'secret.txt');
// A repository enclosing the second root: git must not find it from inside that root.
const ENCLOSING = join(base.path, 'enclosing');
const INNER = join(ENCLOSING, 'inner');

mkdirSync(ROOT);
mkdirSync(join(OUT, 'sub'), { recursive: true });
writeFileSync(SECRET_FILE, `${SECRET}\n`);
writeFileSync(join(OUT, 'sub', 'secret.txt'), `${SECRET}\n`);
mkdirSync(join(OUT, 'repo'));
makeRepo(join(OUT, 'repo'));
writeFileSync(join(OUT, 'repo', 'secret.txt'), `${SECRET}\n`);
git(join(OUT, 'repo'), 'add', 'secret.txt');
git(join(OUT, 'repo'), 'commit', '-qm', 'secret');
mkdirSync(join(ROOT, 'src'));
makeRepo(join(ROOT, 'src'));
const REPO = join(ROOT, 'repo');
mkdirSync(REPO);
makeRepo(REPO);
symlinkSync(OUT, join(REPO, 'escape'));
symlinkSync(join(OUT, 'sub'), join(REPO, 'deep'));
symlinkSync(join(OUT, 'made-through-a-dangling-link'), join(REPO, 'dangling'));
mkdirSync(INNER, { recursive: true });
makeRepo(ENCLOSING);
writeFileSync(join(ENCLOSING, 'secret.txt'), `${SECRET}\n`);
git(ENCLOSING, 'add', 'secret.txt');
git(ENCLOSING, 'commit', '-qm', 'secret');
// A repository inside the root whose submodule points outside: cloning it with its submodules
// must not fetch them (protocol.file.allow=user: local transports only when the call names them).
const SUPER = join(ROOT, 'super');
mkdirSync(SUPER);
makeRepo(SUPER);
git(SUPER, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', join(OUT, 'repo'), 'sub');
git(SUPER, 'commit', '-qm', 'a submodule outside');
git(SUPER, 'submodule', '--quiet', 'deinit', '-f', 'sub');
execFileSync('rm', ['-rf', join(SUPER, '.git', 'modules')]);
const before = snapshot(OUT);
const gitDirBefore = snapshot(join(REPO, '.git', 'hooks')).concat(
  readFileSync(join(REPO, '.git', 'config'), 'utf8'),
);

afterAll(() => {
  base[Symbol.dispose]();
  cache[Symbol.dispose]();
});

/** An attack: a call and the argument its refusal must name. */
interface Row {
  name: string;
  /** The subcommand path: `['remote', 'add']` is `git_remote_add`, or `git_remote` with `add` first in args. */
  command: string[];
  args: Record<string, unknown>;
  /** The argument the refusal names (the first words of the refusal, or the unknown property). */
  refuses: string;
  /** For a path refusal: where the value leads. */
  resolves?: string;
}

const url = (path: string) => `file://${path}`;

// Config keys whose value git later runs as a program (or that move hooks, includes, the work tree).
const PROGRAM_KEYS = [
  ['core.fsmonitor', 'touch pwned-by-fsmonitor'],
  ['CORE.HooksPath', '/tmp'],
  ['core.sshCommand', 'touch pwned'],
  ['alias.st', '!touch pwned'],
  ['include.path', SECRET_FILE],
  ['filter.x.clean', 'touch pwned'],
  ['diff.x.textconv', 'touch pwned'],
  ['protocol.file.allow', 'always'],
  ['core.worktree', '/'],
  ['gpg.ssh.defaultKeyCommand', 'touch pwned'],
  ['core.alternateRefsCommand', 'touch pwned'],
  ['interactive.diffFilter', 'touch pwned'],
  ['difftool.x.cmd', 'touch pwned'],
  ['sendemail.smtpServer', '/tmp/pwned'],
  ['commit.template', SECRET_FILE],
  ['blame.ignoreRevsFile', SECRET_FILE],
  ['http.cookieFile', SECRET_FILE],
  ['remote.origin.url', '/elsewhere'],
  ['url./elsewhere/.insteadOf', 'origin'],
] as const;

const ATTACKS: Row[] = [
  ...PROGRAM_KEYS.map(
    ([key, value]): Row => ({
      name: `config ${key} (runs a program or leaves the roots)`,
      command: ['config', 'set'],
      args: { args: [key, value] },
      refuses: 'args[0]',
    }),
  ),
  {
    name: 'config key=value in one argument',
    command: ['config', 'set'],
    args: { args: ['core.fsmonitor=touch pwned'] },
    refuses: 'args[0]',
  },
  // Options that read a file into the output or the repository.
  {
    name: 'blame --contents, absolute',
    command: ['blame'],
    args: { contents: SECRET_FILE, paths: ['file.txt'] },
    refuses: 'contents',
    resolves: SECRET_FILE,
  },
  {
    name: 'blame --contents, ../ escape',
    command: ['blame'],
    args: { contents: '../../outside/secret.txt', paths: ['file.txt'] },
    refuses: 'contents',
    resolves: SECRET_FILE,
  },
  {
    name: 'blame --contents, symlink in the root',
    command: ['blame'],
    args: { contents: 'escape/secret.txt', paths: ['file.txt'] },
    refuses: 'contents',
    resolves: SECRET_FILE,
  },
  {
    name: 'blame --contents, symlink then ..',
    command: ['blame'],
    args: { contents: 'deep/../secret.txt', paths: ['file.txt'] },
    refuses: 'contents',
    resolves: SECRET_FILE,
  },
  {
    name: 'blame --contents, ~ (home)',
    command: ['blame'],
    args: { contents: '~/secret.txt', paths: ['file.txt'] },
    refuses: 'contents',
  },
  {
    name: 'blame --ignore-revs-file',
    command: ['blame'],
    args: { 'ignore-revs-file': SECRET_FILE, paths: ['file.txt'] },
    refuses: 'ignore-revs-file',
    resolves: SECRET_FILE,
  },
  {
    name: 'blame -S <file>',
    command: ['blame'],
    args: { S: SECRET_FILE, paths: ['file.txt'] },
    refuses: 'S',
    resolves: SECRET_FILE,
  },
  {
    name: 'commit --amend --file',
    command: ['commit'],
    args: { amend: true, file: SECRET_FILE },
    refuses: 'file',
    resolves: SECRET_FILE,
  },
  {
    name: 'commit --template (not offered)',
    command: ['commit'],
    args: { amend: true, template: SECRET_FILE },
    refuses: 'template',
  },
  {
    name: 'commit --pathspec-from-file',
    command: ['commit'],
    args: { 'pathspec-from-file': SECRET_FILE, message: ['x'] },
    refuses: 'pathspec-from-file',
    resolves: SECRET_FILE,
  },
  {
    name: 'tag --annotate --file',
    command: ['tag'],
    args: { annotate: true, file: SECRET_FILE, args: ['v9'] },
    refuses: 'file',
    resolves: SECRET_FILE,
  },
  {
    name: 'archive --add-file',
    command: ['archive'],
    args: { 'add-file': SECRET_FILE, args: ['HEAD'] },
    refuses: 'add-file',
    resolves: SECRET_FILE,
  },
  {
    name: 'archive --output (allowed option) outside',
    command: ['archive'],
    args: { output: join(OUT, 'x.tar'), args: ['HEAD'] },
    refuses: 'output',
    resolves: join(OUT, 'x.tar'),
  },
  {
    name: 'archive --output through a dangling link',
    command: ['archive'],
    args: { output: 'dangling', args: ['HEAD'] },
    refuses: 'output',
    resolves: join(OUT, 'made-through-a-dangling-link'),
  },
  {
    name: 'diff --output (allowed option) outside',
    command: ['diff'],
    args: { output: join(OUT, 'diff.txt') },
    refuses: 'output',
    resolves: join(OUT, 'diff.txt'),
  },
  {
    name: 'add --pathspec-from-file',
    command: ['add'],
    args: { 'pathspec-from-file': SECRET_FILE },
    refuses: 'pathspec-from-file',
    resolves: SECRET_FILE,
  },
  {
    name: 'grep -f <file>',
    command: ['grep'],
    args: { f: SECRET_FILE },
    refuses: 'f',
    resolves: SECRET_FILE,
  },
  {
    name: 'diff, a path through a symlink',
    command: ['diff'],
    args: { paths: ['escape/secret.txt'] },
    refuses: 'paths[0]',
    resolves: SECRET_FILE,
  },
  {
    name: 'diff -O <orderfile>',
    command: ['diff'],
    args: { O: SECRET_FILE },
    refuses: 'O',
    resolves: SECRET_FILE,
  },
  {
    name: 'log pathspec outside',
    command: ['log'],
    args: { paths: ['../../outside/secret.txt'] },
    refuses: 'paths[0]',
    resolves: SECRET_FILE,
  },
  // Destinations that write outside.
  {
    name: 'clone into an outside directory',
    command: ['clone'],
    args: { args: [join(ROOT, 'src'), join(OUT, 'cloned')] },
    refuses: 'args[1]',
    resolves: join(OUT, 'cloned'),
  },
  {
    name: 'clone into host:/../ (a directory name to clone)',
    command: ['clone'],
    args: { args: [join(ROOT, 'src'), 'host:/../../../outside/c5'] },
    refuses: 'args[1]',
    resolves: join(OUT, 'c5'),
  },
  {
    name: 'init an outside directory',
    command: ['init'],
    args: { args: [join(OUT, 'new')] },
    refuses: 'args[0]',
    resolves: join(OUT, 'new'),
  },
  {
    name: 'init through ../',
    command: ['init'],
    args: { args: ['../../outside/new2'] },
    refuses: 'args[0]',
    resolves: join(OUT, 'new2'),
  },
  {
    name: 'init through a missing directory, .. and a symlink',
    command: ['init'],
    args: { args: ['not-yet/../escape/new4'] },
    refuses: 'args[0]',
    resolves: join(OUT, 'new4'),
  },
  {
    name: 'init through a symlink',
    command: ['init'],
    args: { args: ['escape/new3'] },
    refuses: 'args[0]',
    resolves: join(OUT, 'new3'),
  },
  {
    name: 'init --separate-git-dir (not offered)',
    command: ['init'],
    args: { 'separate-git-dir': join(OUT, 'gd'), args: ['x'] },
    refuses: 'separate-git-dir',
  },
  {
    name: 'init --template (not offered)',
    command: ['init'],
    args: { template: OUT, args: ['x'] },
    refuses: 'template',
  },
  {
    name: 'worktree add outside',
    command: ['worktree', 'add'],
    args: { args: [join(OUT, 'wt')] },
    refuses: 'args',
    resolves: join(OUT, 'wt'),
  },
  // Inside the root, but into .git, where a written file makes git run programs.
  {
    name: 'diff --output into .git/config',
    command: ['diff'],
    args: { output: '.git/config' },
    refuses: 'output',
  },
  {
    name: 'archive --output into .git/hooks',
    command: ['archive'],
    args: { output: '.git/hooks/post-commit', args: ['HEAD'] },
    refuses: 'output',
  },
  { name: 'init inside .git', command: ['init'], args: { args: ['.git/nested'] }, refuses: 'args[0]' },
  {
    name: 'a working directory inside .git',
    command: ['log'],
    args: { cwd: join(REPO, '.git', 'hooks') },
    refuses: 'cwd',
  },
  // Paths read from standard input, and operands read as files.
  {
    name: 'hash-object --stdin-paths (not offered)',
    command: ['hash-object'],
    args: { 'stdin-paths': true, w: true, stdin: SECRET_FILE },
    refuses: 'stdin-paths',
  },
  {
    name: 'hash-object -w an outside file',
    command: ['hash-object'],
    args: { w: true, args: [SECRET_FILE] },
    refuses: 'args[0]',
    resolves: SECRET_FILE,
  },
  // Local repositories and file:// URLs outside.
  {
    name: 'clone an outside repository',
    command: ['clone'],
    args: { args: [join(OUT, 'repo'), 'c1'] },
    refuses: 'args[0]',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'clone a file:// URL outside',
    command: ['clone'],
    args: { args: [url(join(OUT, 'repo')), 'c2'] },
    refuses: 'args[0]',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'clone a file://localhost URL, percent-encoded',
    command: ['clone'],
    args: { args: [`file://localhost${join(OUT, 'repo').replaceAll('/', '%2F')}`, 'c3'] },
    refuses: 'args[0]',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'clone a file:// URL with .. inside it',
    command: ['clone'],
    args: { args: [url(`${ROOT}/src/../../outside/repo`), 'c8'] },
    refuses: 'args[0]',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'tag --file as a file:// URL',
    command: ['tag'],
    args: { annotate: true, file: url(SECRET_FILE), args: ['v8'] },
    refuses: 'file',
    resolves: SECRET_FILE,
  },
  {
    name: 'clone --reference outside',
    command: ['clone'],
    args: { reference: join(OUT, 'repo'), args: [join(ROOT, 'src'), 'c4'] },
    refuses: 'reference',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'clone --reference-if-able outside',
    command: ['clone'],
    args: { 'reference-if-able': join(OUT, 'repo'), args: [join(ROOT, 'src'), 'c6'] },
    refuses: 'reference-if-able',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'clone --template (not offered)',
    command: ['clone'],
    args: { template: OUT, args: [join(ROOT, 'src'), 'c7'] },
    refuses: 'template',
  },
  {
    name: 'fetch from an outside repository',
    command: ['fetch'],
    args: { args: [join(OUT, 'repo')] },
    refuses: 'args[0]',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'fetch from a file:// URL outside',
    command: ['fetch'],
    args: { args: [url(join(OUT, 'repo'))] },
    refuses: 'args[0]',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'pull from an outside repository',
    command: ['pull'],
    args: { args: [join(OUT, 'repo'), 'main'] },
    refuses: 'args[0]',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'push into an outside repository',
    command: ['push'],
    args: { args: [join(OUT, 'repo'), 'main:refs/heads/pushed'] },
    refuses: 'args[0]',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'push --repo outside',
    command: ['push'],
    args: { repo: join(OUT, 'repo'), args: ['main:refs/heads/pushed'] },
    refuses: 'repo',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'remote add an outside path',
    command: ['remote', 'add'],
    args: { args: ['evil', join(OUT, 'repo')] },
    refuses: 'args',
    resolves: join(OUT, 'repo'),
  },
  {
    name: 'submodule add an outside repository',
    command: ['submodule', 'add'],
    args: { args: [url(join(OUT, 'repo')), 'sub'] },
    refuses: 'args',
    resolves: join(OUT, 'repo'),
  },
  // Options smuggled past the schema.
  {
    name: 'an abbreviated option as a property (--cont)',
    command: ['blame'],
    args: { cont: SECRET_FILE, paths: ['file.txt'] },
    refuses: 'cont',
  },
  {
    name: 'an abbreviated option in args (--cont=)',
    command: ['blame'],
    args: { args: [`--cont=${SECRET_FILE}`], paths: ['file.txt'] },
    refuses: 'args[0]',
  },
  {
    name: 'a glued short option in args (-Fpath)',
    command: ['commit'],
    args: { args: [`-F${SECRET_FILE}`] },
    refuses: 'args[0]',
  },
  {
    name: 'an option spelled in a path (--output=)',
    command: ['clone'],
    args: { args: [`--upload-pack=touch ${join(OUT, 'pwn')}`, 'x'] },
    refuses: 'args[0]',
  },
  {
    name: 'config through -c in an operand',
    command: ['log'],
    args: { revisions: ['-c', `core.pager=cat ${SECRET_FILE}`] },
    refuses: 'revisions[0]',
  },
  {
    name: 'an option value spelling a dangerous option',
    command: ['log'],
    args: { format: `--output=${join(OUT, 'f')}` },
    refuses: 'format',
  },
  {
    name: 'a repository enclosing a root is not used',
    command: ['show'],
    args: { cwd: INNER, objects: ['HEAD:secret.txt'] },
    refuses: 'not a git repository',
  },
];

/** Calls that must still work: the checks refuse only what leaves the roots. */
const ALLOWED: Row[] = [
  {
    // Reading stays possible (the world check below holds .git/config unchanged).
    name: 'config list',
    command: ['config', 'list'],
    args: {},
    refuses: '',
  },
  {
    name: 'blame --contents inside',
    command: ['blame'],
    args: { contents: 'file.txt', paths: ['file.txt'] },
    refuses: '',
  },
  {
    name: 'clone a repository inside into the root',
    command: ['clone'],
    args: { args: [join(ROOT, 'src'), 'cloned-ok'] },
    refuses: '',
  },
  {
    name: 'clone a file:// URL inside',
    command: ['clone'],
    args: { args: [url(join(ROOT, 'src')), 'cloned-url-ok'] },
    refuses: '',
  },
  {
    name: 'fetch from a repository inside',
    command: ['fetch'],
    args: { args: [join(ROOT, 'src'), 'main'] },
    refuses: '',
  },
  {
    name: 'archive --output inside',
    command: ['archive'],
    args: { output: 'archive-ok.tar', args: ['HEAD'] },
    refuses: '',
  },
  {
    name: 'grep a pattern that looks like a path',
    command: ['grep'],
    args: { pattern: ['/usr'] },
    refuses: '',
  },
];

const ALLOW =
  'blame,commit,tag,archive,add,clone,init,fetch,pull,push,remote,worktree,grep,diff,log,show,submodule,hash-object,config';

function bridgeCommand(sandbox: boolean) {
  return {
    script: BRIDGE_BIN,
    args: [
      'cli',
      'git',
      '--root',
      ROOT,
      '--root',
      INNER,
      '--allow',
      ALLOW,
      '--allow-option',
      'output',
      '--no-watch',
      ...(sandbox ? ['--sandbox'] : []),
    ],
    env: { BRIDGE_CACHE_DIR: cache.path },
    cwd: cache.path,
  };
}

/** Calls `git <command>` through whichever tool serves it (`git_remote_add`, or `git_remote` with `add`). */
async function callRow(client: TestClient, names: Set<string>, row: Row) {
  const args: Record<string, unknown> = { cwd: REPO, ...row.args };
  for (let split = row.command.length; split >= 1; split--) {
    const name = ['git', ...row.command.slice(0, split)].join('_').replaceAll('-', '_');
    if (!names.has(name)) continue;
    const rest = row.command.slice(split);
    const operands = rest.length > 0 ? { args: [...rest, ...((args.args as string[]) ?? [])] } : {};
    return client.callTool(name, { ...args, ...operands });
  }
  throw new Error(`no tool serves git ${row.command.join(' ')}; have ${[...names].join(', ')}`);
}

const sandboxed = process.env.BRIDGE_TEST_NO_SANDBOX ? [false] : [false, true];
const combos: Array<{ kind: ClientKind; wire: Wire; sandbox: boolean }> = sandboxed.flatMap((sandbox) => [
  { kind: 'v1' as const, wire: 'stdio' as const, sandbox },
  { kind: 'v2' as const, wire: 'http' as const, sandbox },
]);

describe.each(combos)('git paths, $kind client over $wire, sandbox $sandbox', ({ kind, wire, sandbox }) => {
  let client: TestClient;
  let names: Set<string>;
  const outputs: string[] = [];
  beforeAll(async () => {
    client = await connect(kind, wire, bridgeCommand(sandbox));
    names = new Set((await client.listTools()).tools.map((tool) => tool.name));
  }, 60_000);
  afterAll(async () => {
    await client?.[Symbol.asyncDispose]();
    execFileSync('rm', [
      '-rf',
      join(REPO, 'cloned-super'),
      join(REPO, 'cloned-ok'),
      join(REPO, 'cloned-url-ok'),
      join(REPO, 'archive-ok.tar'),
    ]);
  });

  it('declares path arguments in the input schema', async () => {
    const tools = (await client.listTools()).tools;
    type Schema = { inputSchema: { properties: Record<string, Record<string, unknown>> } };
    const blame = tools.find((tool) => tool.name === 'git_blame') as unknown as Schema;
    expect(blame.inputSchema.properties.contents).toMatchObject({ type: 'string', 'x-path': 'path' });
    const clone = tools.find((tool) => tool.name === 'git_clone') as unknown as Schema;
    expect(clone.inputSchema.properties.args).toMatchObject({ items: { 'x-path': 'location' } });
  });

  it.each(ATTACKS)('refuses: $name', async (row) => {
    const result = await callRow(client, names, row);
    const text = JSON.stringify(result);
    outputs.push(text);
    expect(result.isError, text).toBe(true);
    const message = String(result.content[0]?.text);
    expect(message).toContain(row.refuses);
    if (row.resolves) {
      expect(message).toContain(`resolves to ${row.resolves}`);
      expect(message).toContain(`outside the allowed roots: ${ROOT}, ${INNER}`);
    }
  });

  it.each(ALLOWED)('allows: $name', async (row) => {
    const result = await callRow(client, names, row);
    const text = JSON.stringify(result);
    outputs.push(text);
    expect(text).not.toContain('refused');
    if (row.command[0] !== 'grep') expect(result.isError, text).toBeFalsy();
  });

  it('does not fetch a submodule outside the roots when cloning a repository inside', async () => {
    const result = await client.callTool('git_clone', {
      cwd: REPO,
      'recurse-submodules': '',
      args: [SUPER, 'cloned-super'],
    });
    outputs.push(JSON.stringify(result));
    // Plain: git refuses the file transport; sandboxed, the outside directory is not even there.
    expect(JSON.stringify(result)).toMatch(
      sandbox ? /does not exist|not allowed/ : /transport 'file' not allowed/,
    );
    expect(result.isError).toBe(true);
    expect(existsSync(join(REPO, 'cloned-super', 'sub', 'secret.txt'))).toBe(false);
  });

  it('left the world as it was: nothing written outside, no secret in any output, no process', async () => {
    expect(snapshot(OUT)).toEqual(before);
    expect(
      snapshot(join(REPO, '.git', 'hooks')).concat(readFileSync(join(REPO, '.git', 'config'), 'utf8')),
    ).toEqual(gitDirBefore);
    expect(existsSync(join(REPO, 'cloned-ok', '.git'))).toBe(true);
    for (const text of outputs) expect(text).not.toContain(SECRET);
    await expect.poll(() => processesUnder(base.path), { timeout: 5_000 }).toEqual([]);
  });
});

// The client's MCP roots narrow --root for paths as they do for cwd: a path inside --root but
// outside the client's roots is refused, with sandbox or without.
describe.each(combos)(
  'git paths within the client roots, $kind client over $wire, sandbox $sandbox',
  ({ kind, wire, sandbox }) => {
    it('refuses a path inside --root but outside the client roots, and allows one inside them', async () => {
      await using client = await connect(kind, wire, bridgeCommand(sandbox), {
        capabilities: { roots: {} },
        answer: async () => ({ roots: [{ uri: pathToFileURL(REPO).href, name: 'repo' }] }),
      });
      const outsideClient = join(ROOT, 'src', 'file.txt');
      const refused = await client.callTool('git_blame', {
        cwd: REPO,
        contents: outsideClient,
        paths: ['file.txt'],
      });
      expect(refused.isError).toBe(true);
      expect(String(refused.content[0]?.text)).toContain(
        `refused: contents "${outsideClient}" resolves to ${outsideClient}, which is outside the client's roots: ${REPO}`,
      );
      const init = await client.callTool('git_init', { cwd: REPO, args: [join(ROOT, 'elsewhere')] });
      expect(init.isError).toBe(true);
      expect(existsSync(join(ROOT, 'elsewhere'))).toBe(false);
      const allowed = await client.callTool('git_blame', {
        cwd: REPO,
        contents: 'file.txt',
        paths: ['file.txt'],
      });
      expect(allowed.isError, JSON.stringify(allowed)).toBeFalsy();
    });
  },
);
