/** One entry of a help text's command list. */
export interface ListedCommand {
  name: string;
  description: string;
  /** Other spellings listed with it (`build, b`): the first, longest-documented name is the tool. */
  aliases?: string[];
}

const NAME_LIST = /^[a-z][\w-]*(?:,\s*[a-z][\w-]*)*,?$/;

/** `Commands:`, `Available Commands:`, `Basic Commands (Beginner):`, `Management Commands:`, `Subcommands:`. */
const HEADING = /^(?:[A-Za-z][\w()/-]*\s){0,3}(?:sub)?commands?(?:\s*\([^)]*\))?:\s*$/i;

/**
 * The entries of a help text's command sections, in the layouts met in practice:
 *
 * - Cobra and most CLIs: `  name   description`, where the longest name may be followed by a single
 *   space (`  buf-plugin-v1beta1 Run buf as a check plugin.`);
 * - aliases: `  build, b    Compile the current package` (cargo);
 * - yargs: `  redocly lint [apis...]     Lint definition files.` (the program name, then the command);
 * - bullets: `  - dir: Show the cache directory.` (pip's subcommands).
 *
 * Wrapped descriptions (lines deeper than the entries) are joined to the entry above.
 */
export function parseCommandList(text: string, program?: string): ListedCommand[] {
  return readCommandSections(text, program).commands;
}

/** The command sections' entries, and the entry lines that could not be read (for a warning). */
export function readCommandSections(
  text: string,
  program?: string,
): { commands: ListedCommand[]; unreadable: string[] } {
  const commands: ListedCommand[] = [];
  const unreadable: string[] = [];
  const lines = text.replace(/\r/g, '').split('\n');
  let indent: number | undefined;
  let inSection = false;
  let headingIndent = 0;
  // Inside npm's comma-separated list of names (`access, adduser, audit,` over several lines).
  let inList = false;
  for (const line of lines) {
    const trimmed = line.trim();
    if (HEADING.test(trimmed) && !/^(usage|see|use|run)\b/i.test(trimmed)) {
      inSection = true;
      inList = false;
      indent = undefined;
      headingIndent = leadingSpaces(line);
      continue;
    }
    if (!inSection) continue;
    // A line of names each followed by a comma, or the list's last line: names, no descriptions.
    // (`build, b    Compile…` is an entry with an alias: it has a description and no trailing comma.)
    if (NAME_LIST.test(trimmed) && (inList || trimmed.endsWith(','))) {
      for (const name of trimmed.split(','))
        if (name.trim()) commands.push({ name: name.trim(), description: '' });
      inList = trimmed.endsWith(',');
      indent ??= leadingSpaces(line);
      continue;
    }
    inList = false;
    if (trimmed === '') {
      // A blank line right after the heading (pip's indented "Subcommands:") does not end it.
      if (indent !== undefined) inSection = false;
      continue;
    }
    const depth = leadingSpaces(line);
    if (depth <= headingIndent && !/^\s*-\s/.test(line)) {
      inSection = false;
      continue;
    }
    if (indent !== undefined && depth > indent) {
      const last = commands[commands.length - 1];
      if (last?.description && !/^[-*]\s/.test(trimmed)) last.description += ` ${trimmed}`;
      continue;
    }
    const entry = parseEntry(trimmed, program);
    if (!entry) {
      // At the entries' depth, a line that is no entry is a command the parser would lose.
      if (depth === indent && /^[A-Za-z]/.test(trimmed)) unreadable.push(trimmed);
      continue;
    }
    indent ??= depth;
    if (depth !== indent) continue;
    commands.push(entry);
  }
  return { commands: dedupe(commands), unreadable };
}

function parseEntry(trimmed: string, program: string | undefined): ListedCommand | undefined {
  const bullet = /^[-*] ([a-z][\w-]*):\s+(\S.*)$/.exec(trimmed);
  if (bullet?.[1]) return { name: bullet[1], description: (bullet[2] ?? '').trim() };
  let rest = trimmed;
  if (program && rest.startsWith(`${program} `)) {
    // yargs: `prog lint [apis...] [--flag]   description`: the command is the word after the program.
    rest = rest.slice(program.length + 1);
    const yargs = /^([a-z][\w-]*(?::[\w-]+)*)((?:\s+[[<][^\]>]*[\]>])*)(?:\s{2,}(\S.*))?$/.exec(rest);
    return yargs?.[1] ? { name: yargs[1], description: (yargs[3] ?? '').trim() } : undefined;
  }
  const match = /^([a-z][\w-]*(?::[\w-]+)*)((?:,\s*[a-z][\w-]*)*)\*?(?:\s+(\S.*))?$/.exec(rest);
  if (!match?.[1]) return undefined;
  const entry: ListedCommand = { name: match[1], description: (match[3] ?? '').trim() };
  const aliases = (match[2] ?? '')
    .split(',')
    .map((alias) => alias.trim())
    .filter(Boolean);
  if (aliases.length > 0) entry.aliases = aliases;
  return entry;
}

function dedupe(commands: ListedCommand[]): ListedCommand[] {
  const seen = new Set<string>();
  return commands.filter((command) => !seen.has(command.name) && seen.add(command.name));
}

function leadingSpaces(line: string): number {
  const match = /^[ \t]*/.exec(line);
  return (match?.[0] ?? '').replace(/\t/g, '        ').length;
}

/** Lines that are never a command's description: banners, notes about the help text itself. */
const BOILERPLATE = [
  /^usage:/i,
  /^-/,
  /not the full help/i,
  /mandatory arguments to long options/i,
  /^(see|use|run|try|type) ['"`]?[\w-]+ (help|--help|-h)\b/i,
  /\b(--help|-h)\b.*\bfor more (information|details|help)/i,
  /^report bugs/i,
  /^(copyright|\(c\))/i,
  /^[\w.-]+ (version|v)?\s*\d+\.\d+(\.\d+)?\b/i,
  /^(home ?page|documentation|website|full documentation)\b/i,
  /^https?:\/\//i,
];

/**
 * The first paragraph of prose in a help text, before its first option or command list: usage
 * lines, lists and boilerplate are skipped, and nothing after a list is taken (an epilogue such as
 * "SIZE is an integer…" or "Use --help all" describes the help, not the command).
 */
export function summaryOf(text: string): string {
  for (const paragraph of text.replace(/\r/g, '').split(/\n\s*\n/)) {
    const all = withoutUsage(paragraph.split('\n')).filter((line) => line.trim() !== '');
    // An option or command list: what follows it is the help's tail, never the description.
    if (all.some((line) => /^\s*-{1,2}[\w?]/.test(line) && !/^-{2,}\s*$/.test(line.trim()))) return '';
    if (all.some((line) => /^[A-Z][\w ]*:\s*$/.test(line.trim()))) return '';
    const lines = all
      .map((line) => line.trim())
      .filter((line) => !BOILERPLATE.some((pattern) => pattern.test(line)));
    const first = lines[0];
    // A command line (`redocly lint [apis...]`, `pip <command> [options]`) is no description.
    if (!first || /:$/.test(first) || /^\[?[\w.-]+\]?(?: [\w:.-]+)* [[<]/.test(first)) continue;
    return lines.join(' ').replace(/\s+/g, ' ').slice(0, 300);
  }
  return '';
}

// Drops a leading usage block: `Usage: ls [OPTION]...`, its indented or `or:` continuation lines.
// GNU programs put their description on the very next line, in the same paragraph.
function withoutUsage(lines: string[]): string[] {
  if (!/^\s*usage:/i.test(lines[0] ?? '')) return lines;
  let next = 1;
  while (next < lines.length && /^(\s+[^\s-]|\s*or:)/i.test(lines[next] ?? '')) next++;
  return lines.slice(next);
}
