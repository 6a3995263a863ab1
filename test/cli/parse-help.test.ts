import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildArgv } from '../../adapters/cli/build-argv.js';
import type { Policy } from '../../adapters/cli/check-policy.js';
import type { CommandSpec } from '../../adapters/cli/cli-spec.js';
import { finishCommand, splitWriteModes } from '../../adapters/cli/finish-command.js';
import {
  parseCommandList,
  parseHelpOptions,
  readCommandSections,
  summaryOf,
} from '../../adapters/cli/parse-help.js';

// Help texts recorded from real programs (buf 1.75, curl, jq, cargo, pip, python3, kubectl, openssl
// 3.0, npm 11, GNU sed 4.9; the machine's paths taken out of npm.txt) and, for layouts no program on the test machine prints, written in the exact layout of their
// library (yargs: redocly*.txt; pflag types: cobra-types.txt; a banner and column-0 options:
// banner.txt; Go's `flag` package: go-flag.txt; terraform's global options: terraform.txt).
const recorded = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../fixtures/cli/help/${name}.txt`, import.meta.url)), 'utf8');
const options = (name: string) =>
  new Map(parseHelpOptions(recorded(name)).map((option) => [option.name, option]));
const names = (name: string, program?: string) =>
  parseCommandList(recorded(name), program).map((entry) => entry.name);

// What buildArgv is given when only the options parsed from a help text matter.
const OPEN_POLICY: Policy = {
  allow: undefined,
  deny: [],
  hidden: [],
  dangerousOptions: [],
  allowedOptions: [],
  dangerousValues: [],
  roots: [],
};
const NO_COMMAND: CommandSpec = { path: [], description: '', options: [], positionals: [] };

describe('command lists', () => {
  it('keeps a Cobra command whose name is followed by a single space', () => {
    expect(names('buf-beta', 'buf')).toEqual([
      'buf-plugin-v1',
      'buf-plugin-v1beta1',
      'buf-plugin-v2',
      'price',
      'registry',
      'studio-agent',
    ]);
    expect(names('buf-registry-module', 'buf')).toContain('undeprecate');
    const entry = parseCommandList(recorded('buf-beta')).find(
      (command) => command.name === 'buf-plugin-v1beta1',
    );
    expect(entry?.description).toBe('Run buf as a check plugin.');
  });

  it('reads yargs command lines (`prog lint [apis...]  description`)', () => {
    const entries = parseCommandList(recorded('redocly'), 'redocly');
    expect(entries.map((entry) => entry.name)).toEqual([
      'stats',
      'split',
      'join',
      'lint',
      'bundle',
      'check-config',
      'login',
      'logout',
      'build-docs',
      'completion',
    ]);
    expect(entries.find((entry) => entry.name === 'lint')?.description).toBe(
      'Lint an API or Arazzo description.',
    );
  });

  it('takes the first, documented name of aliased commands (`build, b`)', () => {
    const entries = parseCommandList(recorded('cargo'), 'cargo');
    expect(entries.find((entry) => entry.name === 'build')).toMatchObject({
      description: 'Compile the current package',
      aliases: ['b'],
    });
    expect(entries.map((entry) => entry.name)).not.toContain('b');
  });

  it('reports a command line it cannot read instead of dropping it silently', () => {
    const text =
      'Commands:\n  build       Compile\n  Deploy.Now  Ship it\n  ...         See all commands with --list\n';
    expect(readCommandSections(text)).toEqual({
      commands: [{ name: 'build', description: 'Compile' }],
      unreadable: ['Deploy.Now  Ship it'],
    });
    expect(readCommandSections(recorded('cargo'), 'cargo').unreadable).toEqual([]);
  });

  it("reads npm's comma-separated list of every command, without taking a name for an alias", () => {
    const listed = names('npm', 'npm');
    expect(listed).toHaveLength(72);
    expect(listed.slice(0, 3)).toEqual(['access', 'adduser', 'approve-scripts']);
    expect(listed).toEqual(expect.arrayContaining(['ls', 'view', 'whoami', 'install-ci-test']));
    expect(
      parseCommandList(recorded('npm'), 'npm').find((entry) => entry.name === 'view')?.aliases,
    ).toBeUndefined();
    // cargo's `build, b    Compile…` stays one command with an alias.
    expect(names('cargo', 'cargo')).not.toContain('b');
  });

  it("reads pip's bulleted subcommands", () => {
    expect(names('pip-cache', 'pip')).toEqual(['dir', 'info', 'list', 'remove', 'purge']);
  });

  it('reads no command list out of prose or YAML in a long help', () => {
    expect(names('buf-format', 'buf')).toEqual([]);
    expect(names('buf-lint', 'buf')).toEqual([]);
  });
});

describe('options', () => {
  it("reads long options spelled with one dash: OpenSSL, Go's flag package, terraform", () => {
    const x509 = options('openssl-x509');
    expect(x509.get('in')).toMatchObject({ flag: '-in', kind: 'string', placeholder: 'infile' });
    expect(x509.get('CAkey')).toMatchObject({ flag: '-CAkey', kind: 'string' });
    expect(x509.get('days')).toMatchObject({ flag: '-days', kind: 'integer' });
    expect(x509.get('noout')).toMatchObject({ flag: '-noout', kind: 'boolean' });
    expect(x509.has('help')).toBe(false);
    expect(x509.size).toBeGreaterThan(60);

    const go = options('go-flag');
    expect(go.get('addr')).toMatchObject({
      flag: '-addr',
      kind: 'string',
      description: 'listen address (default ":8080")',
    });
    expect(go.get('workers')).toMatchObject({ flag: '-workers', kind: 'integer' });
    expect(go.get('read-timeout')).toMatchObject({ flag: '-read-timeout', kind: 'string' });
    // Go's booleans that default to true are turned off with `-flag=false`.
    expect(go.get('tls')).toMatchObject({ kind: 'boolean', offFlag: '-tls=false' });
    expect(go.get('v')).toMatchObject({ flag: '-v', kind: 'boolean', description: 'log every request' });

    const terraform = options('terraform');
    expect([...terraform.keys()]).toEqual(['chdir']);
    expect(terraform.get('chdir')).toMatchObject({ flag: '-chdir', kind: 'string', joined: true });
  });

  it("reads a value written after each spelling (sed's `-e script, --expression=script`)", () => {
    const sed = options('sed');
    expect(sed.get('expression')).toMatchObject({
      flag: '--expression',
      kind: 'string',
      placeholder: 'script',
    });
    expect(sed.get('file')).toMatchObject({ flag: '--file', kind: 'string', placeholder: 'script-file' });
    expect(sed.get('line-length')).toMatchObject({ flag: '--line-length', kind: 'integer' });
    expect(sed.get('in-place')).toMatchObject({ kind: 'string', optionalValue: true });
    expect(sed.get('quiet')).toMatchObject({ kind: 'boolean' });
  });

  it("types npm's bare options from its usage grammar: values, repeats and `<a|b>` choices", () => {
    const ls = options('npm-ls');
    expect(ls.get('all')).toMatchObject({ flag: '--all', kind: 'boolean' });
    expect(ls.has('a')).toBe(false);
    expect(ls.get('depth')).toMatchObject({ flag: '--depth', kind: 'integer' });
    expect(ls.get('omit')).toMatchObject({
      kind: 'enum',
      values: ['dev', 'optional', 'peer'],
      repeatable: true,
    });
    expect(ls.get('workspace')).toMatchObject({ flag: '--workspace', kind: 'string', repeatable: true });
    expect(ls.get('json')).toMatchObject({ kind: 'boolean' });
    // npm 10 prints the grammar alone: the same options, from it.
    const grammarOnly = recorded('npm-ls').split('\n\n  -a|--all')[0] ?? '';
    expect(grammarOnly).not.toContain('Show or act on all packages');
    const fromGrammar = new Map(parseHelpOptions(grammarOnly).map((option) => [option.name, option]));
    // The grammar spells one option by its negation only (`[--no-unicode]`), and so it is offered.
    const spelled = (name: string) => (name === 'unicode' ? 'no-unicode' : name);
    expect([...fromGrammar.keys()].sort()).toEqual([...ls.keys()].map(spelled).sort());
    expect(fromGrammar.get('no-unicode')).toMatchObject({ flag: '--no-unicode', kind: 'boolean' });
    for (const [name, option] of ls) {
      if (name === 'unicode') continue;
      const { description: _, ...shape } = option;
      expect(fromGrammar.get(name), name).toMatchObject(shape);
    }
  });

  it("passes a single-dash option's value as its help writes it, and takes no pseudo option for one", () => {
    const argv = (text: string, args: Record<string, unknown>) =>
      buildArgv({ endOfOptions: '--' }, NO_COMMAND, parseHelpOptions(text), args, OPEN_POLICY);
    expect(argv(recorded('terraform'), { chdir: 'infra' })).toEqual(['-chdir=infra']);
    expect(argv(recorded('openssl-x509'), { in: 'cert.pem', noout: true })).toEqual([
      '-in',
      'cert.pem',
      '-noout',
    ]);
    // A count placeholder, and names with their value stuck to them, are not options.
    const pseudo = parseHelpOptions(
      '  -NUM          same as -n NUM\n  -Xmx<size>    largest heap\n  -Wa,<options> pass options to the assembler\n',
    );
    expect(pseudo).toEqual([]);
  });

  it("leaves out an option named like an Object member when it is left out (not Object's own)", () => {
    const options = parseHelpOptions(
      '  --constructor NAME   who made it\n  --toString TEXT      how to show it\n',
    );
    expect(options.map((option) => option.name)).toEqual(['constructor', 'toString']);
    expect(buildArgv({ endOfOptions: '--' }, NO_COMMAND, options, {}, OPEN_POLICY)).toEqual([]);
    expect(
      buildArgv({ endOfOptions: '--' }, NO_COMMAND, options, { constructor: 'Lotus' }, OPEN_POLICY),
    ).toEqual(['--constructor=Lotus']);
  });

  it('takes no option from the command lines under an Examples heading (gpg, tar)', () => {
    const help = [
      'Options:',
      '  -r, --recipient USER-ID   encrypt for USER-ID',
      '',
      'Examples:',
      '',
      ' -se -r Bob [file]          sign and encrypt for user Bob',
      ' --list-keys [names]        show keys',
      '',
      ' More options:',
      '  -q, --quiet               be somewhat more quiet',
    ].join('\n');
    expect(parseHelpOptions(help).map((option) => option.name)).toEqual(['recipient', 'quiet']);
  });

  it('reads options at column 0 and options followed by a single space', () => {
    const banner = options('banner');
    expect(banner.get('from')).toMatchObject({
      flag: '--from',
      kind: 'string',
      description: 'read this format',
    });
    expect(banner.get('sheet')).toMatchObject({
      kind: 'string',
      description: 'read this sheet of a workbook',
    });
    expect(banner.get('quiet')).toMatchObject({ kind: 'boolean', description: 'Print nothing but errors' });
    const curl = options('curl');
    expect(curl.get('user')).toMatchObject({ kind: 'string', description: 'Server user and password' });
    expect(curl.get('fail')).toMatchObject({ kind: 'boolean' });
    // Python's `-c cmd : program passed in as string`, at column 0.
    const python = options('python3');
    expect(python.get('c')).toMatchObject({ flag: '-c', kind: 'string' });
    expect(python.get('c')?.description).toMatch(/^program passed in as string/);
    expect(python.get('B')).toMatchObject({ kind: 'boolean' });
  });

  it('offers an option taking two values as a pair (`--arg NAME VALUE`)', () => {
    const jq = options('jq');
    expect(jq.get('arg')).toMatchObject({ kind: 'string', valueCount: 2 });
    expect(jq.get('rawfile')).toMatchObject({ valueCount: 2 });
    expect(jq.get('args')).toMatchObject({ kind: 'boolean' });
  });

  it('keeps the long, documented spelling of an aliased option', () => {
    const cargo = options('cargo');
    expect(cargo.get('color')).toMatchObject({
      flag: '--color',
      kind: 'enum',
      values: ['auto', 'always', 'never'],
    });
    const python = options('python3');
    expect(python.has('?')).toBe(false);
  });

  it('turns "Must be one of [a,b]", yargs choices and argparse braces into enums', () => {
    expect(options('buf-lint').get('error-format')).toMatchObject({
      kind: 'enum',
      values: expect.arrayContaining(['text', 'json', 'msvs', 'junit']),
    });
    // "Must be one of format [dir,protofile]" names the format of a path, not its values.
    expect(options('buf-format').get('output')).toMatchObject({ kind: 'string' });
    expect(options('buf-format').get('output')?.values).toBeUndefined();
    const lint = options('redocly-lint');
    expect(lint.get('format')).toMatchObject({
      kind: 'enum',
      values: expect.arrayContaining(['stylish', 'json']),
    });
    expect(lint.get('lint-config')).toMatchObject({ kind: 'enum', values: ['warn', 'error', 'off'] });
    expect(lint.get('max-problems')).toMatchObject({ kind: 'number' });
    expect(lint.get('skip-rule')).toMatchObject({ kind: 'string', repeatable: true });
    expect(lint.get('config')).toMatchObject({ kind: 'string' });
    expect(lint.get('generate-ignore-file')).toMatchObject({ kind: 'boolean' });
  });

  it('types float and map values, keeps a valued --version and drops the plain one', () => {
    const cobra = options('cobra-types');
    expect(cobra.get('qps')).toMatchObject({ kind: 'number' });
    expect(cobra.get('ratio')).toMatchObject({ kind: 'number' });
    expect(cobra.get('labels')).toMatchObject({ kind: 'string', repeatable: true });
    expect(cobra.get('set')).toMatchObject({ kind: 'string', repeatable: true });
    expect(cobra.get('version')).toMatchObject({ kind: 'string', flag: '--version' });
    expect(options('redocly-lint').has('version')).toBe(false);
    expect(cobra.has('help')).toBe(false);
  });

  it('lets a boolean that defaults to true be turned off', () => {
    expect(options('cobra-types').get('wait')).toMatchObject({ kind: 'boolean', offFlag: '--wait=false' });
    expect(options('cobra-types').get('atomic')?.offFlag).toBeUndefined();
    expect(options('kubectl-get').get('server-print')).toMatchObject({
      kind: 'boolean',
      offFlag: '--server-print=false',
    });
  });

  it('reads the full help of curl (every option, not the abridged dozen)', () => {
    expect(options('curl').size).toBeLessThan(20);
    const all = options('curl-all');
    expect(all.size).toBeGreaterThan(200);
    // `<fractional seconds>` is one placeholder (a number), not two values.
    expect(all.get('max-time')).toMatchObject({ kind: 'number' });
    expect(all.get('max-time')?.valueCount).toBeUndefined();
    expect(all.get('alt-svc')).toMatchObject({ kind: 'string' });
    expect([...all.values()].filter((option) => option.valueCount)).toEqual([]);
    // `<data|filename>` names the kinds of value, not a choice (npm's grammar alone lists values so).
    expect(all.get('cookie')).toMatchObject({ kind: 'string', placeholder: '<data|filename>' });
    // A description starting with an acronym after a placeholder (`--json <data> HTTP POST JSON`).
    for (const name of ['data-binary', 'data-urlencode', 'json', 'proxy-cacert'])
      expect(all.get(name), name).toMatchObject({ kind: 'string' });
  });
});

describe('descriptions and names', () => {
  it('never takes a description from boilerplate', () => {
    expect(summaryOf(recorded('banner'))).toBe('Tabconv converts tables between formats.');
    expect(summaryOf(recorded('redocly-lint'))).toBe('Lint an API or Arazzo description.');
    expect(summaryOf(recorded('buf-lint'))).toBe('Run linting on Protobuf files');
  });

  it('takes a GNU description from under its usage line, never from the tail of the help', () => {
    // ls ends with "e.g., '--block-size=M'; see SIZE format below" and an exit-status list.
    expect(summaryOf(recorded('ls'))).toBe(
      'List information about the FILEs (the current directory by default). Sort entries alphabetically if none of -cftuvSUX nor --sort is specified.',
    );
    expect(summaryOf(recorded('sort'))).toBe('Write sorted concatenation of all FILE(s) to standard output.');
    // curl's short help has no description; its tail ("Use --help category …") is not one.
    expect(summaryOf(recorded('curl'))).toBe('');
    expect(summaryOf(recorded('curl-all'))).toBe('');
  });

  it('renames operands that collide with an option (jq --args), keeping both', () => {
    const spec: CommandSpec = {
      path: [],
      description: 'jq',
      options: parseHelpOptions(recorded('jq')),
      positionals: [{ name: 'args', description: '', placement: 'operand' }],
    };
    const finished = finishCommand(spec);
    expect(finished.positionals.map((positional) => positional.name)).toEqual(['operands']);
    expect(finished.options.some((option) => option.name === 'args')).toBe(true);
  });

  it('splits a command with a writing flag into a reader and a writer', () => {
    const spec: CommandSpec = {
      path: ['format'],
      description: 'Format Protobuf files',
      options: parseHelpOptions(recorded('buf-format')),
      positionals: [],
    };
    const [reader, writer] = splitWriteModes([spec]);
    expect(reader?.annotations).toMatchObject({ readOnlyHint: true });
    expect(reader?.options.map((option) => option.name)).not.toContain('write');
    expect(reader?.options.map((option) => option.name)).not.toContain('output');
    expect(writer).toMatchObject({ path: ['format', 'write'], run: ['format', '--write'] });
    expect(writer?.annotations).toMatchObject({ readOnlyHint: false });
    expect(writer?.options.map((option) => option.name)).not.toContain('write');
  });

  it('gives each distinct write flag its own writer, none to a refused one, and the reader none of them', () => {
    const spec: CommandSpec = {
      path: ['check'],
      description: 'Check files',
      options: parseHelpOptions(
        [
          'Options:',
          '      --write     Apply the safe fixes to the files',
          '      --fix       Apply every fix, also the unsafe ones',
          '      --in-place  Edit the files in place',
          '      --verbose   Say more',
        ].join('\n'),
      ),
      positionals: [],
    };
    const tools = splitWriteModes([spec], (option) => option.name !== 'in-place');
    expect(tools.map((tool) => tool.path.join(' '))).toEqual(['check', 'check write', 'check fix']);
    expect(tools[0]?.options.map((option) => option.name)).toEqual(['verbose']);
    expect(tools[0]?.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.slice(1).map((tool) => tool.run)).toEqual([
      ['check', '--write'],
      ['check', '--fix'],
    ]);
    for (const writer of tools.slice(1)) {
      expect(writer.options.map((option) => option.name)).toEqual(['verbose']);
    }
  });
});
