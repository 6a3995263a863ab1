import type { OptionKind, OptionSpec } from './cli-spec.js';

/**
 * Reads the options out of a help text. One parser for the layouts met in practice:
 *
 * - git's parse-options: `-m, --mainline <parent-number>`, `-S, --gpg-sign[=<key-id>]`, `--[no-]foo`
 * - GNU getopt: `-e, --regexp=PATTERNS`, `--color[=WHEN]`, sed's `-e script, --expression=script`
 * - Cobra/pflag: `-f, --filter filter`, `--tail string`, `-n, --lines int`, `(default true)`
 * - kubectl: `-o, --output='':` with the description on the next lines
 * - argparse and friends: `--format {human,abspath}`, `--arg NAME VALUE` (two values)
 * - long options after one dash: OpenSSL's `-in infile`, Go's `flag` package, terraform's `-chdir=DIR`
 * - npm: `-a|--all` listed bare, typed by its usage grammar (`withUsageValues`)
 *
 * Each option line starts with a dash, at column 0 or indented; the header ends at two spaces, a
 * tab, or the end of the line, or at one space when what follows cannot be a value placeholder
 * (`--verbose Print more`); the description follows on the same or the next, deeper lines.
 */
export function parseHelpOptions(text: string): OptionSpec[] {
  const lines = text.replace(/\r/g, '').split('\n');
  const options: OptionSpec[] = [];
  const seen = new Set<string>();
  // Lines under an `Examples:` heading are command lines, not options (gpg's `-se -r Bob [file]`),
  // up to the first blank line after them (tar's options follow its examples).
  let examples: 'no' | 'heading' | 'lines' = 'no';
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (/^\s*examples?:\s*$/i.test(line)) examples = 'heading';
    else if (examples !== 'no' && line.trim() === '') examples = examples === 'lines' ? 'no' : examples;
    else if (examples !== 'no') examples = 'lines';
    if (examples !== 'no') continue;
    const match = matchOptionLine(line);
    if (!match) continue;
    const description = [match.description];
    // Continuation lines: deeper than the option itself and not another option.
    while (index + 1 < lines.length) {
      const next = lines[index + 1] ?? '';
      // yargs wraps its type tags less deep than the option: `   [choices: "a", "b"] [default: "a"]`.
      const tags = /^\s*\[(choices|default|string|number|array|boolean|count|required)\b/.test(next);
      if (next.trim() === '' || /^\s*-/.test(next) || (leadingSpaces(next) <= match.indent && !tags)) break;
      description.push(next.trim());
      index++;
    }
    const option = parseHeader(match.header, description.filter(Boolean).join(' '));
    // yargs' type column says what the schema's type and enum say already: kept for the parse
    // above, left out of what the model reads (with the spaces that aligned it).
    if (option?.description) option.description = withoutYargsTypeTags(option.description);
    if (!option || seen.has(option.name) || isIgnored(option)) continue;
    seen.add(option.name);
    options.push(option);
  }
  return withUsageValues(options, text);
}

/**
 * npm writes its options as a usage grammar, on lines of their own that start with `[`:
 * `[-a|--all] [--depth <depth>] [--omit <dev|optional|peer> [--omit <dev|optional|peer> ...]]`.
 * npm 11 also lists each option bare with its description (`  --depth`, `  -w|--workspace`):
 * those the grammar gives a value are typed from it; options only in the grammar are added.
 */
function withUsageValues(options: OptionSpec[], text: string): OptionSpec[] {
  const grammar = text
    .split('\n')
    .filter((line) => line.startsWith('['))
    .join(' ');
  const found = new Map<string, { placeholder?: string; repeatable: boolean }>();
  for (const match of grammar.matchAll(USAGE_OPTION)) {
    const [, name = '', placeholder, again] = match;
    found.set(name, { ...(placeholder ? { placeholder } : {}), repeatable: again !== undefined });
  }
  if (found.size === 0) return options;
  const typed = options.map((option) => {
    const usage = found.get(option.name);
    found.delete(option.name);
    if (
      !usage?.placeholder ||
      option.kind !== 'boolean' ||
      option.placeholder ||
      !option.flag.startsWith('--')
    )
      return option;
    return valued(option, usage.placeholder, usage.repeatable);
  });
  for (const [name, usage] of found) {
    const bare: OptionSpec = { name, flag: `--${name}`, kind: 'boolean' };
    if (isIgnored(bare) || (name.startsWith('no-') && typed.some((option) => option.name === name.slice(3))))
      continue;
    typed.push(usage.placeholder ? valued(bare, usage.placeholder, usage.repeatable) : bare);
  }
  return typed;
}

function valued(option: OptionSpec, placeholder: string, repeatable: boolean): OptionSpec {
  // In npm's grammar `<dev|optional|peer>` lists the values; elsewhere (curl's `<data|filename>`)
  // such a placeholder names kinds of value, so only here is it a choice.
  const alternatives = /^<([\w.-]+(?:\|[\w.-]+)+)>$/.exec(placeholder);
  const typed: ReturnType<typeof kindOf> = alternatives?.[1]
    ? { kind: 'enum', values: alternatives[1].split('|') }
    : kindOf(placeholder, option.description ?? '');
  const out: OptionSpec = { ...option, kind: typed.kind, placeholder };
  if (typed.values) out.values = typed.values;
  if (repeatable || typed.repeatable) out.repeatable = true;
  return out;
}

/** `[--name]`, `[-x|--name]`, `[--name <value>]`, maybe followed by the same again with `...` (repeatable). */
const USAGE_OPTION = /\[(?:-\w\|)?--([\w-]+)(?: (<[^>]+>)( \[(?:-\w\|)?--\1 <[^>]+> \.\.\.\])?)?\]/g;

// Spellings of one option, each maybe with its value before the next (sed's `-e script, --expression=script`).
const FLAGS = String.raw`-{1,2}[A-Za-z0-9[][^\s,]*(?: [A-Za-z<][^\s,]*(?=, +-))?(?:,? +-{1,2}[A-Za-z0-9[][^\s,]*(?: [A-Za-z<][^\s,]*(?=, +-))?)*`;
/** Value placeholders that cannot start a sentence: `<file>`, `FILE`, `{a,b}`, pflag type names. */
const PLACEHOLDER = String.raw`(?:<[^>]+>|[A-Z][A-Z0-9_-]*|\{[^}]+\}|(?:string|strings|stringArray|stringSlice|int|int32|int64|uint|uint32|uint64|ints|float|float32|float64|duration|bool|stringToString|stringToInt|stringToInt64|bytes|ip|ipNet)\b)`;
const TWO_SPACES = new RegExp(
  String.raw`^( {0,12}|\t)(${FLAGS}(?:[ =][<A-Za-z{(\[+][^\s]*){0,2})(?: {2,}|\t|$)(.*)$`,
);
// The description may start with an acronym after a placeholder (curl's `--json <data> HTTP POST JSON`).
const ONE_SPACE = new RegExp(
  String.raw`^( {0,12}|\t)(${FLAGS}(?: ${PLACEHOLDER})?) ([A-Z(][a-z].*|(?<=> )[A-Z]{2,}\b.*)$`,
);
/** Python's own layout: `-c cmd : program passed in as string`, options at column 0. */
const COLON = new RegExp(String.raw`^( {0,12}|\t)(${FLAGS}(?: [<A-Za-z][^\s]*)?) +: (.*)$`);

function matchOptionLine(line: string): { indent: number; header: string; description: string } | undefined {
  const match = COLON.exec(line) ?? TWO_SPACES.exec(line) ?? ONE_SPACE.exec(line);
  if (!match) return undefined;
  return {
    indent: leadingSpaces(match[1] ?? ''),
    header: (match[2] ?? '').replace(/:$/, ''),
    description: (match[3] ?? '').trim().replace(/^: /, ''),
  };
}

/** Never offered as tool arguments: they print help (or, without a value, the version) instead of running. */
function isIgnored(option: OptionSpec): boolean {
  if (['help', 'h', 'git-completion-helper', 'git-completion-helper-all', 'help-all'].includes(option.name)) {
    return true;
  }
  return option.name === 'version' && option.kind === 'boolean';
}

function parseHeader(header: string, description: string): OptionSpec | undefined {
  let long: string | undefined;
  let short: string | undefined;
  // A long name spelled with one dash: OpenSSL, Go's `flag` package, terraform, gcc (`-out`, `-chdir=DIR`).
  let single: string | undefined;
  let value: { placeholder: string; optional: boolean; joined: boolean } | undefined;
  let negatable = false;
  // Spellings are separated by commas, spaces, or npm's `|` (`-a|--all`).
  for (const part of header.split(/,\s*|\s+(?=-)|\|(?=-)/)) {
    const token = /^(--?)(\[no-\])?([A-Za-z0-9][\w.-]*)(.*)$/.exec(part.trim());
    if (!token) continue;
    const [, dashes, no, name = '', rest = ''] = token;
    if (dashes === '--') {
      // The first long spelling is the documented one (`--output, --out`, `--color, --colour`).
      if (long === undefined) long = name;
      if (no) negatable = true;
    } else if (name.length === 1) short ??= name;
    else if (SINGLE_DASH_NAME.test(name) && !PSEUDO_NAMES.test(name) && /^(?:$|[\s=[])/.test(rest))
      single ??= name;
    else continue; // `-NUM`, `-Xmx<size>` and `-Wl,…` style pseudo options
    const parsed = parseValue(rest.trim());
    if (parsed) value = parsed;
  }
  const flagName = long ?? single ?? short;
  if (!flagName) return undefined;
  const option: OptionSpec = {
    name: flagName,
    flag: long ? `--${long}` : single ? `-${single}` : `-${short}`,
    kind: 'boolean',
  };
  // The flag `=false` turns a default-true boolean off with: a long one, of either spelling.
  const own = long || single ? option.flag : undefined;
  if (value) {
    // `<fractional seconds>` is one placeholder; `NAME VALUE` (jq's `a v`) are two.
    const placeholders = value.placeholder.match(/<[^>]*>|\S+/g) ?? [];
    if (placeholders.length === 2 && !value.optional) option.valueCount = 2;
    const typed = kindOf(placeholders[0] ?? '', description);
    option.kind = typed.kind;
    if (typed.values) option.values = typed.values;
    if (typed.repeatable) option.repeatable = true;
    if (value.optional) option.optionalValue = true;
    if (value.joined && !long && single) option.joined = true;
    if (typed.defaultTrue && own) option.offFlag = `${own}=false`;
    if (value.placeholder) option.placeholder = value.placeholder;
  } else {
    const tagged = yargsKind(description);
    if (tagged) {
      // yargs prints no placeholder but tags the type: `[string]`, `[number]`, `[array]`, `[choices: …]`.
      option.kind = tagged.kind;
      if (tagged.values) option.values = tagged.values;
      if (tagged.repeatable) option.repeatable = true;
    } else if (/\(default:? true\)|\[default: true\]/i.test(description) && own) {
      // pflag's (and Go's `flag`) booleans that default to true are turned off with `--flag=false`.
      option.offFlag = `${own}=false`;
    }
  }
  if (negatable && option.kind === 'boolean') option.negatable = true;
  if (description) option.description = description;
  return option;
}

function parseValue(rest: string): { placeholder: string; optional: boolean; joined: boolean } | undefined {
  if (rest === '') return undefined;
  if (rest.startsWith('[='))
    return { placeholder: rest.slice(2).replace(/\]$/, ''), optional: true, joined: true };
  if (rest.startsWith('=')) return { placeholder: rest.slice(1), optional: false, joined: true };
  if (rest.startsWith('['))
    return { placeholder: rest.slice(1).replace(/\]$/, ''), optional: true, joined: false };
  return { placeholder: rest.replace(/^\s+/, ''), optional: false, joined: false };
}

/**
 * A long option name after one dash (`-out`, `-CAfile`, `-chdir=DIR`). Not a count placeholder
 * (`-NUM`), nor a name with its value stuck to it (`-Xmx<size>`, `-Wa,<options>`).
 */
const SINGLE_DASH_NAME = /^[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*$/;
const PSEUDO_NAMES = /^(NUM|NUMBER|N|COUNT|LINES)$/;

const INTEGER_WORDS =
  /^(n|num|number|int|int32|int64|uint|uint32|uint64|intmax|uintmax|nonneg|long|ulong|count|depth|level|lines|parent-number|port|limit|jobs|max|seconds|timeout)$/i;
const NUMBER_WORDS = /^(float|float32|float64|double|decimal|ratio|fraction|percent|fractional seconds)$/i;
const MAP_WORDS = /^(stringToString|stringToInt|stringToInt64|map|key=value|KEY=VALUE)$/;

/** Infers the type from a value placeholder, kubectl's printed default, or a "Must be one of" list. */
function kindOf(
  placeholder: string,
  description: string,
): { kind: OptionKind; repeatable?: boolean; values?: string[]; defaultTrue?: boolean } {
  // OpenSSL writes `+int` for a positive integer.
  const bare = placeholder
    .replace(/^<|>$/g, '')
    .replace(/^['"]|['"]$/g, '')
    .replace(/^\+(?=[a-z])/, '');
  if (placeholder === 'true') return { kind: 'boolean', defaultTrue: true };
  if (placeholder === 'false' || bare === 'bool') {
    return /\(default:? true\)/i.test(description)
      ? { kind: 'boolean', defaultTrue: true }
      : { kind: 'boolean' };
  }
  const listed = enumOf(bare, description);
  if (listed) return { kind: 'enum', values: listed };
  if (MAP_WORDS.test(bare)) return { kind: 'string', repeatable: true };
  if (placeholder === '[]' || /^(strings|stringArray|stringSlice|ints|list)$/.test(bare)) {
    return { kind: 'string', repeatable: true };
  }
  if (NUMBER_WORDS.test(bare) || /^-?\d+\.\d+$/.test(placeholder)) return { kind: 'number' };
  if (/^-?\d+$/.test(placeholder) || INTEGER_WORDS.test(bare)) return { kind: 'integer' };
  return { kind: 'string' };
}

/** A description without yargs' `[string]`, `[number]`, `[boolean]`, `[array]`, `[count]` and `[choices: …]`. */
function withoutYargsTypeTags(description: string): string {
  const stripped = description
    .replace(/\[(?:string|number|boolean|array|count)\]|\[choices: [^\]]*\]/g, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
  return stripped === '' ? description : stripped;
}

/** The type yargs tags an option's description with. */
function yargsKind(
  description: string,
): { kind: OptionKind; values?: string[]; repeatable?: boolean } | undefined {
  const choices = /\[choices: ([^\]]+)\]/.exec(description);
  if (choices?.[1]) {
    const values = [...choices[1].matchAll(/"([^"]*)"/g)].map((match) => match[1] ?? '');
    if (values.length > 0) return { kind: 'enum', values };
  }
  const tag = /\[(string|number|array|count|boolean)\]/.exec(description)?.[1];
  if (tag === 'string') return { kind: 'string' };
  if (tag === 'number') return { kind: 'number' };
  if (tag === 'count') return { kind: 'integer' };
  if (tag === 'array') return { kind: 'string', repeatable: true };
  return undefined;
}

/** `{human,abspath}`, `(direct|inherit)`, "Must be one of [text,json]" or clap's "[possible values: a, b]". */
function enumOf(bare: string, description: string): string[] | undefined {
  const braces = /^[{(]([\w.-]+(?:[,|][\w.-]+)+)[})]$/.exec(bare);
  if (braces?.[1]) return braces[1].split(/[,|]/);
  const possible = /\[possible values: ([^\]]+)\]/i.exec(description);
  if (possible?.[1]) return possible[1].split(',').map((value) => value.trim());
  // Not "Must be one of format [dir,protofile]" (buf's --output): that names the value's format.
  const oneOf = /must be one of:? \[([^\]]+)\]/i.exec(description);
  if (oneOf?.[1]) {
    const values = oneOf[1].split(',').map((value) => value.trim());
    if (values.length > 1 && values.every((value) => /^[\w.-]+$/.test(value))) return values;
  }
  return undefined;
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

export {
  type ListedCommand,
  parseCommandList,
  readCommandSections,
  summaryOf,
} from './parse-command-list.js';
