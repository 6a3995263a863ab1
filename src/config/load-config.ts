import { dirname, resolve } from 'node:path';
import type { parseDocument } from 'yaml';
import type { z } from 'zod';
import type { AdapterCommand } from '../command.js';
import { BridgeError } from '../errors.js';
import { isPlainObject } from '../plain-object.js';
import { readInputFile } from '../read-input-file.js';
import { markSecretVariable } from '../secret-variables.js';
import {
  type ConfigShell,
  configShellSchema,
  type ServerSettings,
  type SourceEntry,
} from './config-schema.js';
import { describeIssue } from './describe-issue.js';
import {
  type ConfigProblem,
  findInlineSecrets,
  referencedNames,
  resolveEnvReferences,
  secretReferences,
} from './env-references.js';

/** The adapters the command line knows, loaded on first use. */
export type AdapterLoaders = Record<string, () => Promise<AdapterCommand>>;

/** One source of a validated config, its options checked by its adapter. */
export interface ConfiguredSource extends Omit<SourceEntry, 'options'> {
  command: AdapterCommand;
  /** The adapter's options, environment references resolved. */
  options: unknown;
  /** Relative paths in `options` are resolved against this directory. */
  baseDir: string;
}

/** A validated config: from a file (`bridge serve`) or from flags (the shorthand commands). */
export interface BridgeConfig {
  /** Absolute path of the config file; absent for a shorthand command. */
  file?: string;
  server: ServerSettings;
  sources: ConfiguredSource[];
}

/** The most a config file may hold: far above any real one. */
const MAX_CONFIG_BYTES = 16 * 2 ** 20;

/**
 * Reads, parses and validates a config file (YAML or JSON). Throws one `BridgeError`
 * (`invalid_input`) listing every problem as `file:line:column path: what — fix`.
 */
export async function loadConfigFile(
  file: string,
  adapters: AdapterLoaders,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BridgeConfig> {
  const path = resolve(file);
  // A regular file or a pipe (`bridge serve <(…)`), never a device, within MAX_CONFIG_BYTES.
  const { bytes } = await readInputFile(path, { what: 'the config file', maxBytes: MAX_CONFIG_BYTES });
  const text = bytes.toString('utf8');
  // Loaded here, not at start-up: `bridge openapi spec.json` never reads YAML, and yaml costs ~30 ms.
  const { LineCounter, parseDocument } = await import('yaml');
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (document.errors.length > 0) {
    const first = document.errors[0]!;
    const at = lines.linePos(first.pos[0]);
    throw new BridgeError(
      'invalid_input',
      `${file}:${at.line}:${at.col}: not valid YAML or JSON: ${first.message.split('\n')[0]}. Fix the syntax at that line.`,
    );
  }
  const locate = (problemPath: (string | number)[]) => {
    const node = document.getIn(problemPath, true) as { range?: [number, number, number] } | undefined;
    const closest = node?.range ? node : nearestNode(document, problemPath);
    if (!closest?.range) return file;
    const at = lines.linePos(closest.range[0]);
    return `${file}:${at.line}:${at.col}`;
  };
  return validateConfig(document.toJS(), { file, path, locate, adapters, env });
}

/** Validates a parsed config; `locate` turns a path into `file:line:column` for messages. */
export async function validateConfig(
  raw: unknown,
  options: {
    file: string;
    path: string;
    adapters: AdapterLoaders;
    env: NodeJS.ProcessEnv;
    locate?: (path: (string | number)[]) => string;
  },
): Promise<BridgeConfig> {
  const locate = options.locate ?? (() => options.file);
  const fail = (problems: ConfigProblem[]): never => {
    throw new BridgeError('invalid_input', formatProblems(options.file, problems, locate));
  };
  const shell = configShellSchema(Object.keys(options.adapters)).safeParse(raw ?? {});
  const problems: ConfigProblem[] = shell.success ? [] : zodProblems(shell.error, []);
  // Even when the file's shape is wrong somewhere, check every source's options: all problems at once.
  const entries = shell.success ? shell.data.sources : looseEntries(raw);
  const baseDir = dirname(options.path);
  const sources: ConfiguredSource[] = [];
  for (const [index, entry] of entries.entries()) {
    const kind = entry?.kind;
    const load = typeof kind === 'string' ? options.adapters[kind] : undefined;
    if (!entry || typeof kind !== 'string' || !load || !isPlainObject(entry.options ?? {})) continue;
    const at = ['sources', index, 'options'];
    const secrets = findInlineSecrets(entry.options ?? {}, at, entry.namespace ?? kind);
    problems.push(...secrets);
    if (secrets.length > 0) continue;
    // Kept from the commands the bridge runs, whatever source runs them (see `secretReferences`).
    for (const name of secretReferences(entry.options ?? {}, options.env)) markSecretVariable(name);
    const unset: ConfigProblem[] = [];
    const resolved = resolveEnvReferences(entry.options ?? {}, at, options.env, unset);
    problems.push(...unset);
    // The adapter would only complain about the empty strings the unset variables left.
    if (unset.length > 0) continue;
    const command = await load();
    const parsed = command.configSchema.safeParse(resolved);
    if (!parsed.success) {
      problems.push(...zodProblems(parsed.error, at, command));
      continue;
    }
    sources.push({ ...(entry as SourceEntry), command, options: parsed.data, baseDir });
  }
  if (shell.success) problems.push(...overrideNameClashes(shell.data));
  // The store URL usually comes from the environment (one value per deployment).
  const store = shell.success ? shell.data.server?.store : undefined;
  // Its URL carries the store's password.
  for (const name of referencedNames(store)) markSecretVariable(name);
  const resolvedStore =
    store === undefined ? undefined : resolveEnvReferences(store, ['server', 'store'], options.env, problems);
  if (problems.length > 0 || !shell.success) fail(problems);
  const config = shell.data as ConfigShell;
  const server = {
    ...config.server,
    ...(resolvedStore === undefined ? {} : { store: String(resolvedStore) }),
  };
  return { file: options.path, server, sources };
}

// The source entries of a file whose shape is wrong, for checking their options anyway.
function looseEntries(
  raw: unknown,
): Array<{ kind?: unknown; namespace?: string; options?: unknown } | undefined> {
  const list = (raw as { sources?: unknown } | null)?.sources;
  if (!Array.isArray(list)) return [];
  return list.map((entry) => {
    if (typeof entry !== 'object' || entry === null) return undefined;
    const { kind, namespace, options } = entry as Record<string, unknown>;
    return { kind, ...(typeof namespace === 'string' ? { namespace } : {}), options };
  });
}

function zodProblems(
  error: z.ZodError,
  prefix: (string | number)[],
  command?: AdapterCommand,
): ConfigProblem[] {
  return error.issues.map((issue) => {
    const path = [...prefix, ...issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key))];
    // Point at the unknown key itself, so the location is its line.
    if (issue.code === 'unrecognized_keys' && issue.keys.length === 1) path.push(issue.keys[0]!);
    // The same phrasing as for flags ("must be at most 10"); an unknown key keeps zod's own words.
    const message = issue.code === 'unrecognized_keys' ? issue.message : describeIssue(issue);
    return { path, message, fix: fixFor(issue, command) };
  });
}

// zod's type names as a YAML user knows them.
const YAML_TYPE: Record<string, string> = {
  record: 'a mapping (indented "key: value" lines)',
  object: 'a mapping (indented "key: value" lines)',
  array: 'a list ("- item" lines or [a, b])',
};

function fixFor(issue: z.core.$ZodIssue, command?: AdapterCommand): string {
  const where = command
    ? `see "bridge ${command.name} --help" for these options`
    : 'see the schema printed by "bridge config schema"';
  switch (issue.code) {
    case 'unrecognized_keys':
      return `remove ${issue.keys.map((key) => `"${key}"`).join(', ')} or correct the spelling (${where})`;
    case 'invalid_type':
      return issue.message.endsWith('received undefined')
        ? `add this required setting (${where})`
        : `give ${YAML_TYPE[issue.expected] ?? `a ${issue.expected}`} here`;
    case 'invalid_format':
      return 'change the value to that form';
    case 'custom':
      return typeof issue.params?.fix === 'string' ? issue.params.fix : `correct this value (${where})`;
    case 'invalid_value':
      return `use one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return `correct this value (${where})`;
  }
}

// Two override `name`s, in any sources, asking for the same tool name would silently get suffixes.
function overrideNameClashes(config: ConfigShell): ConfigProblem[] {
  const seen = new Map<string, (string | number)[]>();
  const problems: ConfigProblem[] = [];
  config.sources.forEach((source, index) => {
    for (const [tool, override] of Object.entries(source.tools ?? {})) {
      if (!override.name) continue;
      const path = ['sources', index, 'tools', tool, 'name'];
      const earlier = seen.get(override.name);
      if (earlier) {
        problems.push({
          path,
          message: `the name "${override.name}" is already given at ${formatPath(earlier)}`,
          fix: 'give each renamed tool a different name',
        });
      } else seen.set(override.name, path);
    }
  });
  return problems;
}

/** `sources[0].options.headers.Authorization` */
export function formatPath(path: readonly (string | number)[]): string {
  return path
    .map((key, index) =>
      typeof key === 'number'
        ? `[${key}]`
        : /^[A-Za-z_$][\w$-]*$/.test(key)
          ? `${index === 0 ? '' : '.'}${key}`
          : `[${JSON.stringify(key)}]`,
    )
    .join('');
}

function formatProblems(
  file: string,
  problems: ConfigProblem[],
  locate: (path: (string | number)[]) => string,
): string {
  const lines = [...problems]
    .sort((a, b) => comparePaths(a.path, b.path))
    .map(
      (problem) =>
        `  ${locate(problem.path)} ${formatPath(problem.path) || '(top level)'}: ${problem.message}. Fix: ${problem.fix}.`,
    );
  const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
  return `the config file ${file} has ${count}:\n${lines.join('\n')}`;
}

// The deepest existing node on the way to `path` (a missing key is reported where it belongs).
function nearestNode(document: ReturnType<typeof parseDocument>, path: (string | number)[]) {
  for (let length = path.length - 1; length >= 0; length--) {
    const node = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
    // Maps, sequences and scalars all carry their `range`.
    if (node && typeof node === 'object' && 'range' in node)
      return node as { range?: [number, number, number] };
  }
  return undefined;
}

// Problems in file order: sources[2] before sources[10], keys in the order they were found.
function comparePaths(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const [left, right] = [a[index]!, b[index]!];
    if (left === right) continue;
    if (typeof left === 'number' && typeof right === 'number') return left - right;
    return 0;
  }
  return a.length - b.length;
}
