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
 * two tools: the command without its writing options (read-only, unless its words say otherwise)
 * and `<command>_write` (or `_fix`), which runs it with the flag and says it writes.
 */
export function splitWriteModes(commands: CommandSpec[]): CommandSpec[] {
  return commands.flatMap((command) => {
    const flag = command.options.find(isWriteFlag);
    if (!flag) return [command];
    const inferred = inferAnnotations(command.path, { description: command.description });
    const reader: CommandSpec = {
      ...command,
      options: command.options.filter((option) => option !== flag && !isOutputOption(option)),
      annotations: inferred.destructiveHint
        ? { ...command.annotations }
        : { ...command.annotations, readOnlyHint: true },
    };
    const mode = flag.name === 'w' ? 'write' : flag.name.replace(/-/g, '_');
    const writer: CommandSpec = {
      ...command,
      path: [...command.path, mode],
      run: [...(command.run ?? command.path), flag.flag],
      description: `${sentence(command.description)}Rewrites the files in place (${flag.flag}).`,
      options: command.options.filter((option) => option !== flag),
      annotations: { readOnlyHint: false, destructiveHint: inferred.destructiveHint, idempotentHint: true },
    };
    return [reader, writer];
  });
}

function sentence(text: string): string {
  if (!text) return '';
  return /[.!?]$/.test(text) ? `${text} ` : `${text}. `;
}
