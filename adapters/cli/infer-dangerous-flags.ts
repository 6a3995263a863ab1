import type { CommandSpec } from './cli-spec.js';
import { listsFiles } from './infer-file-lists.js';
import { followsLinks } from './infer-link-following.js';
import { runsCommand } from './infer-runners.js';

/**
 * The flags of every option found in the commands' help that runs a program, names a file that
 * lists more files, or follows symbolic links below the paths given: each gets past the path
 * check, so each is dangerous in any CLI (see infer-runners.ts, infer-file-lists.ts,
 * infer-link-following.ts).
 */
export function inferredDangerousFlags(commands: readonly CommandSpec[]): string[] {
  return commands.flatMap((command) =>
    command.options
      .filter((option) => runsCommand(option) || listsFiles(option) || followsLinks(option))
      .map((option) => option.flag),
  );
}
