import type { CommandSpec } from './cli-spec.js';
import { detaches } from './infer-detaching.js';
import { listsFiles } from './infer-file-lists.js';
import { followsLinks } from './infer-link-following.js';
import { namesAfterRemote } from './infer-remote-names.js';
import { runsCommand } from './infer-runners.js';

/**
 * The flags of every option found in the commands' help that runs a program, names a file that
 * lists more files, follows symbolic links below the paths given, names a file written after the
 * remote one, or goes on in the background after the call: each gets past the path check or the
 * call's lifetime, so each is dangerous in any CLI (see infer-runners.ts, infer-file-lists.ts,
 * infer-link-following.ts, infer-remote-names.ts, infer-detaching.ts).
 */
export function inferredDangerousFlags(commands: readonly CommandSpec[]): string[] {
  return commands.flatMap((command) =>
    command.options
      .filter(
        (option) =>
          runsCommand(option) ||
          listsFiles(option) ||
          followsLinks(option) ||
          namesAfterRemote(option) ||
          detaches(option),
      )
      .map((option) => option.flag),
  );
}
