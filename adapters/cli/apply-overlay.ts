import type { CommandSpec, OptionSpec } from './cli-spec.js';
import type { Overlay } from './load-overlay.js';

/** Applies an overlay's per-command curation on top of what discovery found. */
export function applyOverlay(commands: CommandSpec[], overlay: Overlay | undefined): CommandSpec[] {
  if (!overlay?.commands) return commands;
  return commands.map((command) => {
    const entry = overlay.commands?.[command.path.join(' ')];
    if (!entry) return command;
    const result: CommandSpec = { ...command, options: [...command.options] };
    if (entry.description) result.description = entry.description;
    if (entry.positionals) result.positionals = entry.positionals;
    if (entry.stdin !== undefined) result.stdin = entry.stdin;
    if (entry.longRunning !== undefined) result.longRunning = entry.longRunning;
    if (entry.endOfOptions !== undefined) result.endOfOptions = entry.endOfOptions;
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
  });
}
