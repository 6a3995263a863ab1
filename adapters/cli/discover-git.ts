import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandSpec, OptionSpec, PositionalSpec } from './cli-spec.js';
import { formsOf, parseHelpAll, subcommandsFromUsage, usageForms } from './parse-git-help.js';
import { parseHelpOptions, usageOf } from './parse-help.js';
import { mapLimit, probe, sandboxOf } from './probe.js';
import type { Sandbox } from './sandbox.js';

export { subcommandsFromUsage } from './parse-git-help.js';

export interface DiscoveryRequest {
  binary: string;
  cwd: string;
  /** Subcommands to examine; `undefined` for all of `git --list-cmds=main`. */
  commands: string[] | undefined;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Set with `--sandbox`: every probe runs inside it. */
  sandbox?: Sandbox;
}

export interface Discovered {
  commands: CommandSpec[];
  /** `quiet`: an expected gap (logged at debug level), not a command the user loses unawares. */
  skipped: Array<{ path: string[]; reason: string; quiet?: boolean }>;
}

/**
 * Asks git itself: `git --list-cmds=main` for the subcommands, `git help -a` for their one-line
 * descriptions, and per subcommand `git <cmd> -h` (usage and documented options) plus
 * `git <cmd> --git-completion-helper` (every long option; a trailing `=` means it takes a value).
 */
export async function discoverGit(request: DiscoveryRequest): Promise<Discovered> {
  // Probes run in a scratch repository, never the user's: a subcommand that runs instead of
  // printing its help (`git stash create -h` makes a stash commit) then changes nothing of theirs.
  const scratch = mkdtempSync(join(tmpdir(), 'bridge-git-discovery-'));
  try {
    await probe(request.binary, ['init', '-q', scratch], {
      cwd: scratch,
      timeoutMs: request.timeoutMs ?? 5_000,
      ...sandboxOf(request, scratch),
    });
    return await discoverIn(scratch, request);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function discoverIn(cwd: string, request: DiscoveryRequest): Promise<Discovered> {
  const options = {
    cwd,
    timeoutMs: request.timeoutMs ?? 5_000,
    ...signalOf(request),
    ...sandboxOf(request, cwd),
  };
  const [list, help] = await Promise.all([
    request.commands ? undefined : probe(request.binary, ['--list-cmds=main'], options),
    // Verbose by default since git 2.20: one described command per line, by category.
    // (`--no-verbose` prints bare names in columns, whose right-hand column is another command.)
    probe(request.binary, ['help', '-a'], options),
  ]);
  const names =
    request.commands ??
    (list?.text ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
  const descriptions = parseHelpAll(help.text);
  const skipped: Discovered['skipped'] = [];
  const probeOptions = { ...options, timeoutMs: Math.min(options.timeoutMs, 3_000) };
  const examine = async (
    path: string[],
    description: string | undefined,
    parentHelp?: string,
  ): Promise<{ spec: CommandSpec; help: string } | undefined> => {
    const label = `git ${path.join(' ')}`;
    const [usage, completion] = await Promise.all([
      probe(request.binary, [...path, '-h'], probeOptions),
      probe(request.binary, [...path, '--git-completion-helper'], probeOptions),
    ]);
    const printedUsage = !usage.timedOut && /usage:/i.test(usage.text) && !/<html/i.test(usage.text);
    if (!printedUsage && parentHelp && path.length === 2) {
      // `git stash create -h` runs the subcommand instead of printing help: its parent's usage
      // form (`git stash create [<message>]`) says enough for a tool without typed options.
      const forms = formsOf(path[0] as string, path[1] as string, parentHelp);
      if (forms.length > 0) {
        const spec: CommandSpec = {
          path,
          description: description ?? describeForms(forms),
          options: [],
          positionals: positionalsFromUsage(forms.join(' ')),
          endOfOptions: null,
        };
        return { spec, help: '' };
      }
    }
    if (usage.timedOut) {
      skipped.push({ path, reason: `"${label} -h" did not finish in time` });
      return undefined;
    }
    if (!printedUsage) {
      skipped.push({ path, reason: `"${label} -h" printed no usage text` });
      return undefined;
    }
    const helper = completion.timedOut ? '' : completion.text.trim();
    const spec: CommandSpec = {
      path,
      description: description ?? describeForms(usageForms(usage.text)),
      options: helper.startsWith('--')
        ? mergeCompletion(parseHelpOptions(usage.text), helper)
        : parseHelpOptions(usage.text),
      positionals: positionalsFromUsage(usageOf(usage.text)),
    };
    // Only parse-options commands (those with a completion helper) know `--end-of-options`.
    if (!helper.startsWith('--')) spec.endOfOptions = null;
    return { spec, help: usage.text };
  };
  const groups = await mapLimit(names, 4, async (name): Promise<CommandSpec[]> => {
    const description = descriptions.get(name);
    const top = await examine([name], description);
    if (!top) return [];
    // `git stash list`, `git remote add`: one tool per subcommand, each with its own options,
    // and the command itself stays available as the generic tool.
    const subs = subcommandsFromUsage(name, top.help);
    if (subs.length < 2) return [top.spec];
    const nested = await mapLimit(subs, 2, (sub) =>
      examine([name, sub], subDescription(sub, formsOf(name, sub, top.help), description), top.help),
    );
    return [top.spec, ...nested.flatMap((entry) => (entry ? [entry.spec] : []))];
  });
  return { commands: groups.flat(), skipped };
}

/** A command git does not describe (a helper, an older git): its usage, never a placeholder. */
function describeForms(forms: string[]): string {
  if (forms.length === 0) return '';
  const shown = forms.slice(0, 3).map((form) => `\`${form}\``);
  return `Usage: ${shown.join('; ')}${forms.length > 3 ? '; …' : ''}`;
}

/** `git stash list`: what it is part of and how it is called (the overlay curates better ones). */
function subDescription(sub: string, forms: string[], parent: string | undefined): string {
  const usage = forms.length > 0 ? ` Usage: ${forms.map((form) => `\`${form}\``).join('; ')}` : '';
  return parent ? `${parent}: the "${sub}" subcommand.${usage}` : `The "${sub}" subcommand.${usage}`;
}

function signalOf(request: DiscoveryRequest) {
  return request.signal ? { signal: request.signal } : {};
}

/**
 * Adds the long options only the completion helper lists. Its output is the options, then `--`,
 * then the `--no-` forms: a boolean whose `--no-` form is listed can be turned off explicitly.
 */
function mergeCompletion(options: OptionSpec[], text: string): OptionSpec[] {
  const tokens = text.split(/\s+/).filter(Boolean);
  const split = tokens.indexOf('--');
  const positive = split < 0 ? tokens : tokens.slice(0, split);
  const negative = new Set(split < 0 ? [] : tokens.slice(split + 1));
  const byName = new Map(options.map((option) => [option.name, option]));
  const result = [...options];
  for (const token of positive) {
    const match = /^--([A-Za-z0-9][\w.-]*)(=?)$/.exec(token);
    if (!match?.[1]) continue;
    const name = match[1];
    if (name === 'git-completion-helper' || name === 'help') continue;
    let option = byName.get(name);
    if (!option) {
      option = { name, flag: `--${name}`, kind: match[2] ? 'string' : 'boolean' };
      byName.set(name, option);
      result.push(option);
    }
    if (option.kind === 'boolean' && negative.has(`--no-${name}`)) option.negatable = true;
  }
  return result;
}

/**
 * Positional arguments: operands (revisions, names, URLs; before `--`) always, since many usage
 * lines leave them out (`git config [<options>]`), and paths (after `--`) when the usage shows
 * `[--]` or `--`.
 */
function positionalsFromUsage(usage: string): PositionalSpec[] {
  const positionals: PositionalSpec[] = [
    {
      name: 'args',
      description:
        'Positional arguments in order (revisions, names, URLs, values). None may start with "-": use the typed options instead.',
      placement: 'operand',
    },
  ];
  if (/\[--\]|\s--\s|\[\[--\]/.test(usage)) {
    positionals.push({
      name: 'paths',
      description: 'Paths or pathspecs, passed after "--" so they are never read as options or revisions.',
      placement: 'path',
    });
  }
  return positionals;
}
