import type { CommandSpec, OptionSpec, PositionalSpec } from './cli-spec.js';
import { parseHelpOptions, usageOf } from './parse-help.js';
import { mapLimit, probe } from './probe.js';

export interface DiscoveryRequest {
  binary: string;
  cwd: string;
  /** Subcommands to examine; `undefined` for all of `git --list-cmds=main`. */
  commands: string[] | undefined;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface Discovered {
  commands: CommandSpec[];
  skipped: Array<{ path: string[]; reason: string }>;
}

/**
 * Asks git itself: `git --list-cmds=main` for the subcommands, `git help -a` for their one-line
 * descriptions, and per subcommand `git <cmd> -h` (usage and documented options) plus
 * `git <cmd> --git-completion-helper` (every long option; a trailing `=` means it takes a value).
 */
export async function discoverGit(request: DiscoveryRequest): Promise<Discovered> {
  const options = { cwd: request.cwd, timeoutMs: request.timeoutMs ?? 5_000, ...signalOf(request) };
  const [list, help] = await Promise.all([
    request.commands ? undefined : probe(request.binary, ['--list-cmds=main'], options),
    probe(request.binary, ['help', '-a', '--no-verbose'], options).then((result) =>
      result.exitCode === 0 ? result : probe(request.binary, ['help', '-a'], options),
    ),
  ]);
  const names =
    request.commands ??
    (list?.text ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
  const descriptions = parseDescriptions(help.text);
  const skipped: Discovered['skipped'] = [];
  const probeOptions = { ...options, timeoutMs: Math.min(options.timeoutMs, 3_000) };
  const examine = async (
    path: string[],
    description: string,
  ): Promise<{ spec: CommandSpec; help: string } | undefined> => {
    const label = `git ${path.join(' ')}`;
    const [usage, completion] = await Promise.all([
      probe(request.binary, [...path, '-h'], probeOptions),
      probe(request.binary, [...path, '--git-completion-helper'], probeOptions),
    ]);
    if (usage.timedOut) {
      skipped.push({ path, reason: `"${label} -h" did not finish in time` });
      return undefined;
    }
    if (!/usage:/i.test(usage.text) || /<html/i.test(usage.text)) {
      skipped.push({ path, reason: `"${label} -h" printed no usage text` });
      return undefined;
    }
    const helper = completion.timedOut ? '' : completion.text.trim();
    const spec: CommandSpec = {
      path,
      description,
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
    const description = descriptions.get(name) ?? `Runs git ${name}.`;
    const top = await examine([name], description);
    if (!top) return [];
    // `git stash list`, `git remote add`: one tool per subcommand, each with its own options.
    const subs = subcommandsFromUsage(name, top.help);
    if (subs.length < 2) return [top.spec];
    const nested = await mapLimit(subs, 2, (sub) => examine([name, sub], `${description} (${sub})`));
    const found = nested.flatMap((entry) => (entry ? [entry.spec] : []));
    return found.length > 0 ? found : [top.spec];
  });
  return { commands: groups.flat(), skipped };
}

/**
 * The subcommand words of a usage text: `usage: git stash list …`, `or: git notes [--ref <r>] add …`
 * (leading bracketed options skipped, a bracketed word such as `[push` or `[show]` accepted).
 */
export function subcommandsFromUsage(name: string, text: string): string[] {
  const words = new Set<string>();
  const prefix = `git ${name} `;
  for (const line of text.split('\n')) {
    const match = /^\s*(?:usage|or):\s*(.*)$/i.exec(line);
    const form = match?.[1];
    if (!form?.startsWith(prefix)) continue;
    let rest = form.slice(prefix.length).trim();
    // Skip leading option groups like `[--ref <notes-ref>]` or `[-v | --verbose]`.
    while (/^\[-/.test(rest)) {
      let depth = 0;
      let end = 0;
      for (; end < rest.length; end++) {
        if (rest[end] === '[') depth++;
        else if (rest[end] === ']' && --depth === 0) break;
      }
      rest = rest.slice(end + 1).trim();
    }
    const word = /^\[?([a-z][a-z-]*)\]?(?:\s|$)/.exec(rest)?.[1];
    if (word) words.add(word);
  }
  return [...words];
}

function signalOf(request: DiscoveryRequest) {
  return request.signal ? { signal: request.signal } : {};
}

/** `   add                     Add file contents to the index` → add ⇒ description. */
function parseDescriptions(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^ {2,4}([a-z][\w-]*)\s{2,}(\S.*)$/.exec(line);
    if (match?.[1] && match[2]) map.set(match[1], match[2].trim());
  }
  return map;
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
export function positionalsFromUsage(usage: string): PositionalSpec[] {
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
