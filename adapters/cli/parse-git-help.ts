/**
 * Readers for what git prints about itself: `git help -a` (the one-line description of every
 * command) and the `usage:` / `or:` forms of `git <cmd> -h`.
 */

/** Sections of `git help -a` that are not git's commands: their right-hand column is no description. */
const NOT_COMMANDS =
  /^(external commands|command aliases)\b|^available git commands|^git commands available/i;

/**
 * The descriptions of `git help -a` (verbose, the default since git 2.20), by command name.
 *
 * Only lines under a category heading count: three spaces, the name, at least three spaces, the
 * description. The external-commands and aliases sections (`   co   checkout`: an alias, not a
 * description) and the `--no-verbose` layout (names in columns after two spaces: the right-hand
 * column is another command) are never read, and a "description" that is only another command's
 * name is dropped, so no command is ever described by a neighbour's name.
 */
export function parseHelpAll(text: string): Map<string, string> {
  const map = new Map<string, string>();
  let inCommands = false;
  for (const line of text.replace(/\r/g, '').split('\n')) {
    if (line.trim() === '') continue;
    if (!/^\s/.test(line)) {
      inCommands = !NOT_COMMANDS.test(line.trim()) && !/^(usage|see|'git help)/i.test(line.trim());
      continue;
    }
    if (!inCommands) continue;
    const match = /^ {3}([a-z0-9][\w.-]*) {3,}(\S.*)$/.exec(line);
    if (match?.[1] && match[2]) map.set(match[1], match[2].trim());
  }
  for (const [name, description] of map) if (map.has(description)) map.delete(name);
  return map;
}

/** The `usage:` and `or:` forms of a help text, continuation lines joined (`git stash -h`). */
export function usageForms(text: string): string[] {
  const forms: string[] = [];
  for (const line of text.replace(/\r/g, '').split('\n')) {
    const start = /^\s*(?:usage|or):\s*(\S.*)$/i.exec(line);
    if (start?.[1]) forms.push(start[1].trim());
    else if (forms.length === 0) continue;
    // Deeper lines that are not options continue the form above (`[-u | --include-untracked]`).
    else if (/^\s{4,}[^\s-]/.test(line)) forms[forms.length - 1] += ` ${line.trim()}`;
    else break;
  }
  return forms;
}

/**
 * The subcommand words of a usage text: `usage: git stash list …`, `or: git notes [--ref <r>] add …`
 * (leading bracketed options skipped, a bracketed word such as `[push` or `[show]` accepted).
 */
export function subcommandsFromUsage(name: string, text: string): string[] {
  const words = new Set<string>();
  for (const form of usageForms(text)) {
    const word = subcommandOf(name, form);
    if (word) words.add(word);
  }
  return [...words];
}

/** The usage forms of one subcommand (`git stash create [<message>]`), from its parent's help. */
export function formsOf(name: string, sub: string, text: string): string[] {
  return usageForms(text).filter((form) => subcommandOf(name, form) === sub);
}

function subcommandOf(name: string, form: string): string | undefined {
  const prefix = `git ${name} `;
  if (!form.startsWith(prefix)) return undefined;
  let rest = form.slice(prefix.length).trim();
  // Skip leading option groups like `[--ref <notes-ref>]` or `[-v | --verbose]`.
  while (/^\[-/.test(rest)) {
    let depth = 0;
    let end = 0;
    for (; end < rest.length; end++) {
      if (rest[end] === '[') depth++;
      else if (rest[end] === ']' && --depth === 0) break;
    }
    rest = rest.slice(end + 1).trim();
  }
  return /^\[?([a-z][a-z-]*)\]?(?:\s|$)/.exec(rest)?.[1];
}
