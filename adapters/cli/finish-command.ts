import type { CommandSpec, OptionSpec } from './cli-spec.js';
import { inferAnnotations } from './infer-annotations.js';

/** Property names every tool already has (build-input-schema adds them). */
const ADAPTER_PROPERTIES = new Set(['cwd', 'timeout', 'stdin']);

/**
 * Last touches on a discovered command: a positional whose name an option already takes (`--args`
 * next to the `args` operands) is renamed, so both stay reachable instead of one being dropped.
 */
export function finishCommand(command: CommandSpec): CommandSpec {
  const taken = new Set([...command.options.map((option) => option.name), ...ADAPTER_PROPERTIES]);
  const positionals = command.positionals.map((positional) => {
    if (!taken.has(positional.name)) return positional;
    let name = positional.name === 'args' ? 'operands' : `${positional.name}_operands`;
    while (taken.has(name)) name = `${name}_`;
    taken.add(name);
    return { ...positional, name };
  });
  return { ...command, positionals };
}

/** `--write`, `--fix`, `--in-place`, or a `-w` that says it writes: the command then rewrites files. */
function isWriteFlag(option: OptionSpec): boolean {
  if (option.kind !== 'boolean') return false;
  if (['write', 'fix', 'in-place', 'inplace'].includes(option.name)) return true;
  return option.name === 'w' && /writ|in.place|modif/i.test(option.description ?? '');
}

/** Where a command would write its result instead of printing it (`-o, --output`). */
function isOutputOption(option: OptionSpec): boolean {
  return (
    ['output', 'o', 'out', 'output-file', 'outfile', 'out-file'].includes(option.name) &&
    option.kind !== 'boolean'
  );
}

/**
 * A command with a writing mode (`buf format` prints, `buf format --write` rewrites the files) becomes
 * a reader and one writer per write flag: the reader is the command without any of its write flags
 * or output options (read-only, unless its words say otherwise); `<command>_write` (`_fix`…) runs it
 * with its flag and says it writes. Runs after the overlay's curation, so both inherit what the
 * overlay removed, marked as paths or annotated, and a removed write flag yields no writer. `offered`
 * is the dangerous-option policy: a writer would put its flag in the fixed words of every run, past
 * the check that drops dangerous options from the schema, so a refused flag gets no writer.
 */
export function splitWriteModes(
  commands: CommandSpec[],
  offered: (option: OptionSpec) => boolean = () => true,
): CommandSpec[] {
  return commands.flatMap((command) => {
    const flags = command.options.filter(isWriteFlag);
    if (flags.length === 0) return [command];
    const inferred = inferAnnotations(command.path, { description: command.description });
    const curated = command.annotations ?? {};
    const reader: CommandSpec = {
      ...command,
      options: command.options.filter((option) => !flags.includes(option) && !isOutputOption(option)),
      // Read-only unless its words say it destroys something, or the overlay said otherwise.
      annotations:
        inferred.destructiveHint || curated.readOnlyHint !== undefined
          ? { ...curated }
          : { ...curated, readOnlyHint: true },
    };
    const writers = new Map<string, CommandSpec>();
    for (const flag of flags) {
      const mode = flag.name === 'w' ? 'write' : flag.name.replace(/-/g, '_');
      if (!offered(flag) || writers.has(mode) || isAliasOfAnother(flag, flags)) continue;
      writers.set(mode, {
        ...command,
        path: [...command.path, mode],
        run: [...(command.run ?? command.path), flag.flag],
        description: `${sentence(command.description)}Rewrites the files in place (${flag.flag}).`,
        options: command.options.filter((option) => !flags.includes(option)),
        annotations: {
          ...curated,
          readOnlyHint: false,
          destructiveHint: curated.destructiveHint ?? inferred.destructiveHint,
          idempotentHint: curated.idempotentHint ?? true,
        },
      });
    }
    return [reader, ...writers.values()];
  });
}

/** `--fix  Alias for \`--write\`` (biome): the same writer twice would only confuse the caller. */
function isAliasOfAnother(flag: OptionSpec, flags: readonly OptionSpec[]): boolean {
  const target = /\balias (?:for|of) `?(--?[\w-]+)/i.exec(flag.description ?? '')?.[1];
  return target !== undefined && target !== flag.flag && flags.some((other) => other.flag === target);
}

function sentence(text: string): string {
  if (!text) return '';
  return /[.!?]$/.test(text) ? `${text} ` : `${text}. `;
}
