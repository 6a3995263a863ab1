import type { OptionSpec } from './cli-spec.js';

// Options whose value is a program the CLI runs: tar's `--to-command=COMMAND` and
// `--checkpoint-action=exec=…` (both through `/bin/sh -c`), `--use-compress-program=PROG`,
// `--info-script`; rsync's `--rsh=COMMAND`; zip's `--unzip-command`; man's `--pager`; helm's
// `--post-renderer` ("the path to an executable"); make's `--eval=STRING`. Offered, any of them would run what the caller
// writes, past every check on arguments: they are dangerous options, offered only when
// `--allow-option` names them (git's are curated by its overlay instead).

const PLACEHOLDER = /^(command|cmd|prog|program|script|shell|executable|hook|editor|pager)s?$/i;
const NAME =
  /(?:^|[-_])(command|cmd|program|prog|script|exec|eval|shell|hook|editor|pager|viewer)(?:$|[-_])/i;
const PROSE = [
  /\b(execute[sd]?|run[s]?|invoke[sd]?|spawn[s]?|evaluate[sd]?)\b[^.]*?\b(command|program|script|action|shell|executable|statement|code)\b/i,
  /\bpipe[sd]?\b[^.]*?\bto\b[^.]*?\b(command|program)\b/i,
  /\b(path to|name of) (an? )?(executable|program|script)\b/i,
];

/** Whether `option` takes a program (or a shell command) to run as its value. */
export function runsCommand(option: OptionSpec): boolean {
  if (option.kind === 'boolean') return false;
  const placeholder = (option.placeholder ?? '').replace(/^[=<[\s]+|[>\]\s]+$/g, '');
  if (PLACEHOLDER.test(placeholder) || NAME.test(option.name)) return true;
  const description = option.description ?? '';
  return PROSE.some((pattern) => pattern.test(description));
}
