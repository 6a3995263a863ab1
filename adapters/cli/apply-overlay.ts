import type { CommandSpec, OptionSpec } from './cli-spec.js';
import { splitWriteModes } from './finish-command.js';
import type { CommandOverlayEntry, ModeOverlayEntry, Overlay } from './load-overlay.js';

/**
 * Applies an overlay's per-command curation on top of what discovery found, then adds the modes
 * of multi-mode commands (`git branch` → `git_branch_list`, `git_branch_delete`…) as commands of
 * their own. A mode replaces a discovered subcommand of the same path (`git config list` on a git
 * that has one); the generic command stays. Last, commands with a writing flag are split into a
 * reader and writers (see `splitWriteModes`): after the curation, so a writer inherits its
 * command's, and an entry naming the writer itself (`format write`) is applied on top. Without
 * `offered` (git, whose modes the overlay curates) nothing is split.
 */
export function applyOverlay(
  commands: CommandSpec[],
  overlay: Overlay | undefined,
  offered?: (option: OptionSpec) => boolean,
): CommandSpec[] {
  const entryOf = (command: CommandSpec) => overlay?.commands?.[command.path.join(' ')];
  const curated = commands.map((command) => {
    const entry = entryOf(command);
    return entry ? curate(command, entry) : command;
  });
  const modes = new Map(
    curated.map((command) => [
      command,
      command.path.length === 1
        ? Object.entries(overlay?.modes?.[command.path[0] as string] ?? {}).map(([name, mode]) =>
            modeOf(command, name, mode),
          )
        : [],
    ]),
  );
  const taken = new Set([...modes.values()].flat().map((mode) => mode.path.join(' ')));
  // Each command's modes follow it, so a tool list reads git_branch, git_branch_list, …
  const withModes = curated.flatMap((command) =>
    taken.has(command.path.join(' ')) ? [] : [command, ...(modes.get(command) ?? [])],
  );
  if (!offered) return withModes;
  const before = new Set(withModes.map((command) => command.path.join(' ')));
  return splitWriteModes(withModes, offered).map((command) => {
    const entry = before.has(command.path.join(' ')) ? undefined : entryOf(command);
    return entry ? curate(command, entry) : command;
  });
}

function curate(command: CommandSpec, entry: CommandOverlayEntry): CommandSpec {
  const result: CommandSpec = { ...command, options: [...command.options] };
  if (entry.description) result.description = entry.description;
  if (entry.positionals) result.positionals = entry.positionals;
  if (entry.stdin !== undefined) result.stdin = entry.stdin;
  if (entry.longRunning !== undefined) result.longRunning = entry.longRunning;
  if (entry.endOfOptions !== undefined) result.endOfOptions = entry.endOfOptions;
  if (entry.env) result.env = { ...command.env, ...entry.env };
  if (entry.annotations) result.annotations = { ...command.annotations, ...entry.annotations };
  for (const [name, patch] of Object.entries(entry.options ?? {})) {
    const index = result.options.findIndex((option) => option.name === name);
    const base: OptionSpec = result.options[index] ?? { name, flag: `--${name}`, kind: 'boolean' };
    const merged: OptionSpec = { ...base, ...patch, name };
    if (index >= 0) result.options[index] = merged;
    else result.options.push(merged);
  }
  if (entry.removeOptions) {
    result.options = result.options.filter((option) => !entry.removeOptions?.includes(option.name));
  }
  return result;
}

/** One mode as a command: the base's options narrowed to `keepOptions`, run with the mode's words. */
function modeOf(base: CommandSpec, name: string, mode: ModeOverlayEntry): CommandSpec {
  const keep = mode.keepOptions ? new Set(mode.keepOptions) : undefined;
  const spec: CommandSpec = {
    path: [...base.path, name],
    run: [...(base.run ?? base.path), ...(mode.args ?? [])],
    description: mode.description ?? `${base.description} (${name})`,
    options: base.options.filter((option) => !keep || keep.has(option.name)),
    positionals: base.positionals,
    // The mode's hints stand on their own: the base's curated ones describe every mode at once.
    annotations: {},
  };
  if (base.endOfOptions !== undefined) spec.endOfOptions = base.endOfOptions;
  if (base.longRunning !== undefined) spec.longRunning = base.longRunning;
  // A mode runs the base command: what its environment keeps from the program, the mode keeps.
  if (base.env) spec.env = base.env;
  const { args: _args, keepOptions: _keep, ...entry } = mode;
  return curate(spec, entry);
}
