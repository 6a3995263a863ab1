import type { CommandSpec } from './cli-spec.js';
import { listsFiles } from './infer-file-lists.js';
import { followsLinks } from './infer-link-following.js';
import { namesAfterRemote } from './infer-remote-names.js';
import { runsCommand } from './infer-runners.js';

/**
 * The flags of every option found in the commands' help that runs a program, names a file that
 * lists more files, follows symbolic links below the paths given, or names a file written after
 * the remote one: each gets past the path check, so each is dangerous in any CLI (see
 * infer-runners.ts, infer-file-lists.ts, infer-link-following.ts, infer-remote-names.ts).
 */
export function inferredDangerousFlags(commands: readonly CommandSpec[]): string[] {
  return commands.flatMap((command) =>
    command.options
      .filter(
        (option) =>
          runsCommand(option) || listsFiles(option) || followsLinks(option) || namesAfterRemote(option),
      )
      .map((option) => option.flag),
  );
}
