import type { CommandSpec } from './cli-spec.js';
import type { Discovered } from './discover-git.js';
import { finishCommand } from './finish-command.js';
import { parseHelpOptions, readCommandSections, summaryOf, usageOf } from './parse-help.js';
import { MAX_HELP_PAGES, mapLimit, probe, sandboxOf, withinBudget } from './probe.js';
import type { Sandbox } from './sandbox.js';

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
  sandbox?: Sandbox,
  globalArgs?: readonly string[],
): Promise<string | undefined> {
  const result = await probe(binary, ['__complete', ''], {
    cwd,
    timeoutMs: 3_000,
    ...(signal ? { signal } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(globalArgs ? { globalArgs } : {}),
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
  /** The name the program was invoked by (`buf`), for its help texts' command lines. */
  program: string;
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
  const entries = parseCompletions(request.completions).filter(
    (entry) => !SKIPPED.has(entry.name) && (!request.commands || request.commands.includes(entry.name)),
  );
  const commands: CommandSpec[] = [];
  const skipped: Discovered['skipped'] = [];
  const program = request.program;
  // Groups are expanded at any depth (`buf registry module commit add-label`); the limit only
  // guards against a command tree that lists itself.
  const maxDepth = request.maxDepth ?? 8;
  let level = entries.map((entry) => ({ path: [entry.name], description: entry.description }));
  const budget = { left: MAX_HELP_PAGES };
  for (let depth = 1; level.length > 0; depth++) {
    level = withinBudget(level, budget, skipped);
    const children = await mapLimit(level, 4, async (node) => {
      const label = [program, ...node.path].join(' ');
      const help = await probe(request.binary, [...node.path, '--help'], options);
      if (help.timedOut) {
        skipped.push({ path: node.path, reason: `"${label} --help" did not finish in time` });
        return [];
      }
      if (!/usage:|flags:/i.test(help.text)) {
        skipped.push({ path: node.path, reason: `"${label} --help" printed no help text` });
        return [];
      }
      const sections = readCommandSections(help.text, program);
      for (const line of sections.unreadable) {
        skipped.push({
          path: node.path,
          reason: `the command list line "${line}" of "${label} --help" could not be read`,
        });
      }
      const subcommands = sections.commands.filter((entry) => !SKIPPED.has(entry.name));
      // A group is never a tool: its children are. A command that has children and also runs on
      // its own (`kubectl apply -f FILE` next to `kubectl apply view-last-applied`) is both.
      if (subcommands.length > 0) {
        if (depth >= maxDepth) {
          skipped.push({ path: node.path, reason: `nested deeper than ${maxDepth} levels` });
          return [];
        }
        if (runsOnItsOwn(help.text, label)) commands.push(leafOf(node, help.text));
        return subcommands.map((entry) => ({
          path: [...node.path, entry.name],
          description: entry.description,
        }));
      }
      commands.push(leafOf(node, help.text));
      return [];
    });
    level = children.flat();
  }
  commands.sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' ')));
  return { commands, skipped };
}

function leafOf(node: { path: string[]; description: string }, text: string): CommandSpec {
  return finishCommand({
    path: node.path,
    description: node.description || summaryOf(text),
    usage: usageOf(text),
    options: parseHelpOptions(sectionsOf(text, /^(Flags|Options):\s*$/)),
    positionals: [
      {
        name: 'args',
        description:
          'Positional arguments in order (resource types, names, images). None may start with "-": use the typed options instead.',
        placement: 'operand',
      },
    ],
  });
}

/**
 * Whether a command with subcommands also runs by itself: one of its usage lines names operands or
 * required flags (`kubectl apply (-f FILENAME | -k DIRECTORY) [options]`), not only `[flags]`,
 * `[command]` or a `SUBCOMMAND` placeholder (`buf registry module [flags]`, `kubectl config SUBCOMMAND`).
 */
function runsOnItsOwn(text: string, label: string): boolean {
  const usage: string[] = [];
  let inside = false;
  for (const line of text.replace(/\r/g, '').split('\n')) {
    const start = /^usage:\s*(.*)$/i.exec(line);
    if (start) {
      inside = true;
      if (start[1]) usage.push(start[1].trim());
    } else if (inside && /^\s+\S/.test(line)) usage.push(line.trim());
    else if (inside) inside = false;
  }
  return usage.some((line) => {
    if (!line.startsWith(`${label} `) && line !== label) return false;
    const rest = line
      .slice(label.length)
      .replace(/\[(flags|options|command)\]/gi, '')
      .replace(/\b(SUBCOMMAND|COMMAND)\b/g, '')
      .trim();
    return rest !== '';
  });
}

/** `name\tdescription` lines up to the `:<directive>` line. */
function parseCompletions(text: string): Array<{ name: string; description: string }> {
  const entries: Array<{ name: string; description: string }> = [];
  for (const line of text.split('\n')) {
    if (/^:\d+/.test(line) || line.startsWith('Completion ended')) break;
    const [name, description = ''] = line.split('\t');
    if (name && /^[a-z][\w-]*$/.test(name)) entries.push({ name, description: description.trim() });
  }
  return entries;
}

/** The text of every section whose heading matches (`Flags:`, `Global Flags:`), each up to the next unindented line. */
function sectionsOf(text: string, heading: RegExp): string {
  const parts: string[] = [];
  let inside = false;
  for (const line of text.replace(/\r/g, '').split('\n')) {
    if (/^\S/.test(line)) {
      inside = heading.test(line.trim());
      continue;
    }
    if (inside) parts.push(line);
  }
  return parts.join('\n');
}
