import type { OptionKind, OptionSpec } from './cli-spec.js';

/**
 * Reads the options out of a help text. One parser for the layouts met in practice:
 *
 * - git's parse-options: `-m, --mainline <parent-number>`, `-S, --gpg-sign[=<key-id>]`, `--[no-]foo`
 * - GNU getopt: `-e, --regexp=PATTERNS`, `--color[=WHEN]`
 * - Cobra/pflag: `-f, --filter filter`, `--tail string`, `-n, --lines int`
 * - kubectl: `-o, --output='':` with the description on the next lines
 *
 * Each option line starts with a dash after some indentation; the header ends at two spaces, a
 * tab, or the end of the line; the description follows on the same or the next, deeper lines.
 */
export function parseHelpOptions(text: string): OptionSpec[] {
  const lines = text.replace(/\r/g, '').split('\n');
  const options: OptionSpec[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const match =
      /^( {1,12}|\t)(-{1,2}[A-Za-z0-9[][^\s]*(?:,? +-{1,2}[A-Za-z0-9[][^\s]*)*(?: [<A-Za-z][^\s]*)?)(?: {2,}|\t|$)(.*)$/.exec(
        line,
      );
    if (!match) continue;
    const indent = (match[1] ?? '').length;
    const header = (match[2] ?? '').replace(/:$/, '');
    const description = [match[3]?.trim() ?? ''];
    // Continuation lines: deeper than the option itself and not another option.
    while (index + 1 < lines.length) {
      const next = lines[index + 1] ?? '';
      if (next.trim() === '' || /^\s*-/.test(next) || leadingSpaces(next) <= indent) break;
      description.push(next.trim());
      index++;
    }
    const option = parseHeader(header, description.filter(Boolean).join(' '));
    if (!option || seen.has(option.name) || IGNORED.has(option.name)) continue;
    seen.add(option.name);
    options.push(option);
  }
  return options;
}

/** Never offered as tool arguments: they print help or version instead of running the command. */
const IGNORED = new Set(['help', 'h', 'version', 'git-completion-helper', 'git-completion-helper-all']);

function parseHeader(header: string, description: string): OptionSpec | undefined {
  let long: string | undefined;
  let short: string | undefined;
  let value: { placeholder: string; optional: boolean } | undefined;
  let negatable = false;
  for (const part of header.split(/,\s*|\s+(?=-)/)) {
    const token = /^(--?)(\[no-\])?([A-Za-z0-9][\w.-]*)(.*)$/.exec(part.trim());
    if (!token) continue;
    const [, dashes, no, name = '', rest = ''] = token;
    if (dashes === '--') {
      long = name;
      if (no) negatable = true;
    } else if (name.length === 1) short = name;
    else continue; // `-NUM` style pseudo options
    const parsed = parseValue(rest.trim());
    if (parsed) value = parsed;
  }
  const flagName = long ?? short;
  if (!flagName) return undefined;
  const option: OptionSpec = {
    name: flagName,
    flag: long ? `--${long}` : `-${short}`,
    kind: 'boolean',
  };
  if (value) {
    const typed = kindOf(value.placeholder);
    option.kind = typed.kind;
    if (typed.repeatable) option.repeatable = true;
    if (value.optional) option.optionalValue = true;
    if (value.placeholder) option.placeholder = value.placeholder;
  }
  if (negatable && option.kind === 'boolean') option.negatable = true;
  if (description) option.description = description;
  return option;
}

function parseValue(rest: string): { placeholder: string; optional: boolean } | undefined {
  if (rest === '') return undefined;
  if (rest.startsWith('[=')) return { placeholder: rest.slice(2).replace(/\]$/, ''), optional: true };
  if (rest.startsWith('=')) return { placeholder: rest.slice(1), optional: false };
  if (rest.startsWith('[')) return { placeholder: rest.slice(1).replace(/\]$/, ''), optional: true };
  return { placeholder: rest.replace(/^\s+/, ''), optional: false };
}

const INTEGER_WORDS =
  /^(n|num|number|int|int32|int64|uint|uint32|count|depth|level|lines|parent-number|port|limit|jobs|max|seconds|timeout)$/i;

/** Infers the type from a value placeholder, or from kubectl's printed default. */
function kindOf(placeholder: string): { kind: OptionKind; repeatable?: boolean } {
  const bare = placeholder.replace(/^<|>$/g, '').replace(/^['"]|['"]$/g, '');
  if (placeholder === 'false' || placeholder === 'true' || bare === 'bool') return { kind: 'boolean' };
  if (placeholder === '[]' || /^(strings|stringArray|stringSlice|ints|list)$/.test(bare)) {
    return { kind: 'string', repeatable: true };
  }
  if (/^-?\d+$/.test(placeholder) || INTEGER_WORDS.test(bare)) return { kind: 'integer' };
  return { kind: 'string' };
}

function leadingSpaces(line: string): number {
  const match = /^[ \t]*/.exec(line);
  return (match?.[0] ?? '').replace(/\t/g, '        ').length;
}

/** The `usage:` line(s) of a help text, joined, or '' when there is none. */
export function usageOf(text: string): string {
  const match = /(?:^|\n)\s*usage:\s*([\s\S]*?)(?:\n\s*\n|$)/i.exec(text);
  return (match?.[1] ?? '').replace(/\s+/g, ' ').trim();
}

/** The entries of a `Commands:`-like section: `  name   description` lines. */
export function parseCommandList(text: string): Array<{ name: string; description: string }> {
  const commands: Array<{ name: string; description: string }> = [];
  const lines = text.replace(/\r/g, '').split('\n');
  let inSection = false;
  for (const line of lines) {
    if (/^([A-Za-z ]+ )?commands:\s*$/i.test(line.trim()) && !/^\s/.test(line)) {
      inSection = true;
      continue;
    }
    if (!inSection) continue;
    if (line.trim() === '') {
      inSection = false;
      continue;
    }
    const entry = /^\s{1,8}([a-z][\w-]*)\*?(?:\s{2,}(.*))?$/.exec(line);
    if (entry?.[1]) commands.push({ name: entry[1], description: (entry[2] ?? '').trim() });
  }
  return commands;
}

/** The first paragraph of prose in a help text, skipping usage lines. */
export function summaryOf(text: string): string {
  for (const paragraph of text.replace(/\r/g, '').split(/\n\s*\n/)) {
    const clean = paragraph.trim();
    if (!clean || /^usage:/i.test(clean) || /^-/.test(clean) || /:$/.test(clean.split('\n')[0] ?? ''))
      continue;
    return clean.replace(/\s+/g, ' ').slice(0, 300);
  }
  return '';
}
