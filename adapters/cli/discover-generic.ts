import type { CommandSpec } from './cli-spec.js';
import type { Discovered } from './discover-git.js';
import { finishCommand } from './finish-command.js';
import { programNameOf } from './make-tool.js';
import {
  type ListedCommand,
  parseHelpOptions,
  readCommandSections,
  summaryOf,
  usageOf,
} from './parse-help.js';
import { MAX_HELP_PAGES, mapLimit, type ProbeResult, probe, sandboxOf, withinBudget } from './probe.js';
import type { Sandbox } from './sandbox.js';

/** Commands that never make useful tools. */
const SKIPPED = new Set(['help', 'completion', 'completions']);

/** A help text that says it is abridged, and where the full one is. */
const ABRIDGED = /not the full help|--help[ =]all|--help-all|--help-full|help-hidden/i;

/**
 * For any other program: `--help` (or `-h`) read by the generic parser. The program itself becomes
 * one tool; when its help lists commands, each command becomes a tool of its own, read from
 * `<command> --help`, and a command that lists commands in turn is a group whose commands are the
 * tools (at any depth). A command whose help cannot be read is a warning naming it.
 */
export async function discoverGeneric(request: {
  binary: string;
  cwd: string;
  commands: string[] | undefined;
  signal?: AbortSignal;
  timeoutMs?: number;
  sandbox?: Sandbox;
  /** Put before every probe's arguments (see `ProbeOptions`). */
  globalArgs?: readonly string[];
}): Promise<Discovered> {
  const options = {
    cwd: request.cwd,
    timeoutMs: request.timeoutMs ?? 5_000,
    ...(request.signal ? { signal: request.signal } : {}),
    ...sandboxOf(request),
    ...(request.globalArgs ? { globalArgs: request.globalArgs } : {}),
  };
  const program = programNameOf(request.binary);
  const skipped: Discovered['skipped'] = [];
  const readHelp = async (path: string[]): Promise<ProbeResult | undefined> => {
    let help = await probe(request.binary, [...path, '--help'], options);
    if (help.timedOut || !looksLikeHelp(help.text))
      help = await probe(request.binary, [...path, '-h'], options);
    if (help.timedOut || !looksLikeHelp(help.text)) return undefined;
    if (ABRIDGED.test(help.text)) {
      // `curl --help` lists a few options and says "--help all" has them all.
      for (const full of [['--help', 'all'], ['--help-all']]) {
        const more = await probe(request.binary, [...path, ...full], options);
        if (!more.timedOut && looksLikeHelp(more.text) && more.text.length > help.text.length) return more;
      }
    }
    return help;
  };
  const root = await readHelp([]);
  const all = root ? listOf(root.text, program, skipped) : [];
  // Commands named by --allow or an overlay are read from their own help when the program prints
  // no help the parser can read (OpenSSL's `--help` is a bare grid of names). A program with a
  // readable help that lists no command has none: `jq --allow x` does not make `jq x` a command.
  const named = !root && request.commands ? request.commands : undefined;
  if (!root && !named) {
    return {
      commands: [],
      skipped: [{ path: [], reason: 'neither --help nor -h printed a help text in time' }],
    };
  }
  const listed = named
    ? named.filter((name) => !SKIPPED.has(name)).map((name) => ({ name, description: '' }))
    : all.filter((entry) => !request.commands || request.commands.includes(entry.name));
  if (listed.length === 0 && root) {
    return {
      commands: [toCommand([], root.text, summaryOf(root.text) || `Runs ${program}.`)],
      skipped,
    };
  }
  const commands: CommandSpec[] = [];
  const names = (entries: ListedCommand[]) => entries.map((entry) => entry.name);
  let level = listed.map((entry) => ({
    path: [entry.name],
    description: entry.description,
    siblings: names(listed),
  }));
  const budget = { left: MAX_HELP_PAGES };
  for (let depth = 1; level.length > 0 && depth <= 6; depth++) {
    level = withinBudget(level, budget, skipped);
    const next = await mapLimit(level, 4, async (node) => {
      const help = await readHelp(node.path);
      if (!help) {
        const label = [program, ...node.path].join(' ');
        skipped.push({ path: node.path, reason: `"${label} --help" printed no help in time` });
        return [];
      }
      const children = listOf(help.text, program, skipped, node.path);
      // `pip cache dir --help` prints its group's help again: the same list is not a new group.
      const repeats = children.every((entry) => node.siblings.includes(entry.name));
      // A group is never a tool: its commands are (`pip cache list`, `pip cache purge`).
      if (children.length > 0 && !repeats && depth < 6) {
        return children.map((entry) => ({
          path: [...node.path, entry.name],
          description: entry.description,
          siblings: names(children),
        }));
      }
      commands.push(toCommand(node.path, help.text, node.description || summaryOf(help.text)));
      return [];
    });
    level = next.flat();
  }
  return { commands, skipped };
}

function listOf(
  text: string,
  program: string,
  skipped?: Discovered['skipped'],
  path: string[] = [],
): ListedCommand[] {
  const sections = readCommandSections(text, program);
  for (const line of sections.unreadable) {
    const label = [program, ...path].join(' ');
    skipped?.push({ path, reason: `the command list line "${line}" of "${label} --help" could not be read` });
  }
  return sections.commands.filter((entry) => !SKIPPED.has(entry.name));
}

function toCommand(path: string[], text: string, description: string): CommandSpec {
  const usage = usageOf(text);
  const mentionsOperands = usage === '' || /<[^>]+>|\b[A-Z][A-Z_]{1,}\b|\[[a-z][^\]]*\]|\.\.\./.test(usage);
  const command: CommandSpec = {
    path,
    description,
    usage,
    options: parseHelpOptions(text),
    positionals: mentionsOperands
      ? [
          {
            name: 'args',
            description:
              'Positional arguments in order. None may start with "-": use the typed options instead.',
            placement: 'operand',
          },
        ]
      : [],
  };
  // Filters (grep, jq, sort, sed) read standard input when no file is named: offer `stdin`.
  // They say so, or their usage makes the files optional (`jq [options] <jq filter> [file...]`).
  if (/\b(standard input|stdin)\b/i.test(text) || /\[(file|FILE)s?(\.\.\.)?\](\.\.\.)?/.test(text)) {
    command.stdin = true;
  }
  return finishCommand(command);
}

function looksLikeHelp(text: string): boolean {
  return /usage|options|--\w/i.test(text) && !/<html/i.test(text);
}
