import type { CommandSpec } from './cli-spec.js';
import type { Discovered } from './discover-git.js';
import { parseCommandList, parseHelpOptions, summaryOf, usageOf } from './parse-help.js';
import { mapLimit, probe } from './probe.js';

/** Subcommands that never make useful tools (shell completion scripts, help, completion internals). */
const SKIPPED = new Set(['completion', 'help', '__complete', '__completeNoDesc']);

/**
 * The top-level completions of `binary` when it is a Cobra program (its hidden `__complete`
 * command ends with a `:<directive>` line), else `undefined`. `discoverCobra` starts from them.
 */
export async function cobraCompletions(
  binary: string,
  cwd: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const result = await probe(binary, ['__complete', ''], {
    cwd,
    timeoutMs: 3_000,
    ...(signal ? { signal } : {}),
  });
  return result.exitCode === 0 && /(^|\n):\d+\s*(\n|$)/.test(result.text) ? result.text : undefined;
}

/**
 * Walks a Cobra command tree (kubectl, docker, gh, helm): `__complete` lists the top-level
 * commands with descriptions; `<path> --help` gives each command's flags and, for a group, its
 * children. Groups become their children (nested tools); leaves become tools.
 */
export async function discoverCobra(request: {
  binary: string;
  cwd: string;
  commands: string[] | undefined;
  maxDepth?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** What `cobraCompletions` returned: the top level is not asked twice. */
  completions: string;
}): Promise<Discovered> {
  const options = {
    cwd: request.cwd,
    timeoutMs: request.timeoutMs ?? 5_000,
    ...(request.signal ? { signal: request.signal } : {}),
  };
  const entries = parseCompletions(request.completions).filter(
    (entry) => !SKIPPED.has(entry.name) && (!request.commands || request.commands.includes(entry.name)),
  );
  const commands: CommandSpec[] = [];
  const skipped: Discovered['skipped'] = [];
  const maxDepth = request.maxDepth ?? 3;
  let level = entries.map((entry) => ({ path: [entry.name], description: entry.description }));
  for (let depth = 1; level.length > 0 && depth <= maxDepth; depth++) {
    const children = await mapLimit(level, 4, async (node) => {
      const help = await probe(request.binary, [...node.path, '--help'], options);
      if (help.timedOut) {
        skipped.push({ path: node.path, reason: `"${node.path.join(' ')} --help" did not finish in time` });
        return [];
      }
      const subcommands = parseCommandList(help.text).filter((entry) => !SKIPPED.has(entry.name));
      if (subcommands.length > 0 && depth < maxDepth) {
        return subcommands.map((entry) => ({
          path: [...node.path, entry.name],
          description: entry.description,
        }));
      }
      commands.push({
        path: node.path,
        description: node.description || summaryOf(help.text),
        usage: usageOf(help.text),
        options: parseHelpOptions(sectionAfter(help.text, /^(Flags|Options):\s*$/m)),
        positionals: [
          {
            name: 'args',
            description:
              'Positional arguments in order (resource types, names, images). None may start with "-": use the typed options instead.',
            placement: 'operand',
          },
        ],
      });
      return [];
    });
    level = children.flat();
  }
  commands.sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' ')));
  return { commands, skipped };
}

/** `name\tdescription` lines up to the `:<directive>` line. */
export function parseCompletions(text: string): Array<{ name: string; description: string }> {
  const entries: Array<{ name: string; description: string }> = [];
  for (const line of text.split('\n')) {
    if (/^:\d+/.test(line) || line.startsWith('Completion ended')) break;
    const [name, description = ''] = line.split('\t');
    if (name && /^[a-z][\w-]*$/.test(name)) entries.push({ name, description: description.trim() });
  }
  return entries;
}

/** The text from the first line matching `heading` up to the next unindented heading (global flags excluded). */
function sectionAfter(text: string, heading: RegExp): string {
  const match = heading.exec(text);
  if (!match) return '';
  const rest = text.slice(match.index + match[0].length);
  const end = /\n(?:Global Flags|Global Options|Use "|Run '|Examples|Usage|Aliases)[^\n]*\n?/.exec(rest);
  return end ? rest.slice(0, end.index) : rest;
}
