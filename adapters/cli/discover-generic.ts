import { basename } from 'node:path';
import type { CommandSpec } from './cli-spec.js';
import type { Discovered } from './discover-git.js';
import { parseCommandList, parseHelpOptions, summaryOf, usageOf } from './parse-help.js';
import { mapLimit, probe } from './probe.js';

/**
 * For any other program: `--help` (or `-h`) read by the generic parser. The program itself becomes
 * one tool; when its help has a `Commands:` section, each command becomes a tool of its own, read
 * from `<command> --help`.
 */
export async function discoverGeneric(request: {
  binary: string;
  cwd: string;
  commands: string[] | undefined;
  signal?: AbortSignal;
  timeoutMs?: number;
}): Promise<Discovered> {
  const options = {
    cwd: request.cwd,
    timeoutMs: request.timeoutMs ?? 5_000,
    ...(request.signal ? { signal: request.signal } : {}),
  };
  const skipped: Discovered['skipped'] = [];
  let help = await probe(request.binary, ['--help'], options);
  if (help.timedOut || !looksLikeHelp(help.text)) help = await probe(request.binary, ['-h'], options);
  if (help.timedOut || !looksLikeHelp(help.text)) {
    return {
      commands: [],
      skipped: [{ path: [], reason: 'neither --help nor -h printed a help text in time' }],
    };
  }
  const name = basename(request.binary);
  const listed = parseCommandList(help.text).filter(
    (entry) => entry.name !== 'help' && (!request.commands || request.commands.includes(entry.name)),
  );
  const root = toCommand([], help.text, summaryOf(help.text) || `Runs ${name}.`);
  if (listed.length === 0) return { commands: [root], skipped };
  const children = await mapLimit(listed, 4, async (entry) => {
    const sub = await probe(request.binary, [entry.name, '--help'], options);
    if (sub.timedOut || !looksLikeHelp(sub.text)) {
      skipped.push({ path: [entry.name], reason: `"${name} ${entry.name} --help" printed no help in time` });
      return undefined;
    }
    return toCommand([entry.name], sub.text, entry.description || summaryOf(sub.text));
  });
  return { commands: children.filter((child): child is CommandSpec => child !== undefined), skipped };
}

function toCommand(path: string[], text: string, description: string): CommandSpec {
  const usage = usageOf(text);
  const mentionsOperands = usage === '' || /<[^>]+>|\b[A-Z][A-Z_]{1,}\b|\[[a-z][^\]]*\]|\.\.\./.test(usage);
  return {
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
}

function looksLikeHelp(text: string): boolean {
  return /usage|options|--\w/i.test(text) && !/<html/i.test(text);
}
