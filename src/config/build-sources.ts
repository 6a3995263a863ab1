import type { AdapterCommand } from '../command.js';
import { BridgeError, describeError, toBridgeError } from '../errors.js';
import type { LoadContext, Source } from '../source.js';
import { decorateSource } from './decorate-source.js';
import { describeIssue } from './describe-issue.js';
import type { BridgeConfig, ConfiguredSource } from './load-config.js';

/**
 * A shorthand command (`bridge openapi spec.yaml …`) as the one-source config it stands for, so
 * that both paths serve, watch and inspect through the same code. The options from the flags pass
 * the adapter's `configSchema` like a config file's, so both accept exactly the same values.
 */
export function shorthandConfig(command: AdapterCommand, options: unknown, baseDir: string): BridgeConfig {
  const checked = command.configSchema.safeParse(options);
  if (!checked.success) {
    // Said in the words of the command line: the flag, what it must be, what was given.
    const problems = checked.error.issues.map((issue) => {
      const [field] = issue.path;
      const flag = typeof field === 'string' ? command.flagNames?.[field] : undefined;
      const name = flag ?? (issue.path.join('.') || `${command.name} options`);
      const given = issue.path.length > 0 ? valueAt(options, issue.path) : undefined;
      const got = given === undefined || typeof given === 'object' ? '' : ` (got ${JSON.stringify(given)})`;
      return `${name} ${describeIssue(issue)}${got}`;
    });
    throw new BridgeError('invalid_input', problems.join('; '));
  }
  return { server: {}, sources: [{ kind: command.name, command, options: checked.data, baseDir }] };
}

/** Builds one decorated source per config entry (nothing is loaded yet). */
export function buildSources(config: BridgeConfig): Source[] {
  return config.sources.map((entry, index) => buildSource(entry, index, config));
}

function buildSource(entry: ConfiguredSource, index: number, config: BridgeConfig): Source {
  const { file } = config;
  const confirm = entry.confirm ?? config.server.confirm;
  const confirmFallback = entry.confirmFallback ?? config.server.confirmFallback;
  const askMissing = entry.askMissing ?? config.server.askMissing;
  let source: Source;
  try {
    source = entry.command.createSource(entry.options, entry.baseDir);
  } catch (error) {
    const where = file ? `${file} sources[${index}]` : entry.kind;
    throw new BridgeError('invalid_input', `${where}: ${describeError(error)}`, { cause: error });
  }
  if (file) source = withLocation(source, `${file} sources[${index}]`);
  return decorateSource(source, {
    ...(entry.namespace === undefined ? {} : { namespace: entry.namespace }),
    ...(entry.include === undefined ? {} : { include: entry.include }),
    ...(entry.exclude === undefined ? {} : { exclude: entry.exclude }),
    ...(entry.tools === undefined ? {} : { tools: entry.tools }),
    ...(confirm === undefined ? {} : { confirm }),
    ...(confirmFallback === undefined ? {} : { confirmFallback }),
    ...(askMissing === undefined ? {} : { askMissing }),
  });
}

/** Every local file the tools come from: the config itself and what the sources report. */
export function watchedFiles(config: BridgeConfig, sources: readonly Source[]): string[] {
  const files = new Set<string>();
  if (config.file) files.add(config.file);
  for (const source of sources) for (const file of source.watchedFiles?.() ?? []) files.add(file);
  return [...files];
}

// A source that fails to load names the config entry it came from, so the user knows what to fix.
function withLocation(source: Source, where: string): Source {
  return Object.assign(Object.create(source) as Source, {
    label: source.label,
    async load(context: LoadContext) {
      try {
        return await source.load(context);
      } catch (error) {
        const failure = toBridgeError(error, 'load_failed');
        throw new BridgeError(failure.code, `${where}: ${describeError(failure)}`, { cause: error });
      }
    },
  });
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}
