import type { OptionSpec } from './cli-spec.js';

// Options that make a program make symbolic links (cp's `-s`, `--symbolic-link`: its relative target
// is read from the link's directory, and a later `mv` of the link retargets it), or follow the
// symbolic links it meets while walking directories:
// grep's `-R` (`--dereference-recursive`), cp's and du's `-L` (`--dereference`), tar's `-h`,
// rsync's `--copy-links`, `--copy-dirlinks` and `--keep-dirlinks`, zstd's `-f` ("operating on
// links"), gzip's `-f` ("compress links"). The checks resolve the links of
// the paths a call names, not of what lies below them: a link inside the roots that points out of
// them (the user's, or one an archive or a repository brought) would be read, or written,
// through. Offered only when `--allow-option` names them.

const NAME =
  /^(symbolic-link|dereference|dereference-recursive|dereference-args|dereference-command-line(-symlink-to-dir)?|copy-links|copy-dirlinks|copy-unsafe-links|keep-dirlinks|follow-symlinks?)$/i;
const PROSE = [
  /\bfollow(s|ing)? (all |every )?(the )?(symbolic links|symlinks)\b/i,
  // zstd's `-f`: "Allows overwriting existing files, input from console, output to stdout,
  // operating on links": with `-r` it compressed a link's target from outside the roots.
  /\b(operat(e|es|ing)|work(s|ing)?|act(s|ing)?) on (symbolic |sym)?links\b/i,
  // gzip's `-f`: "force overwrite of output file and compress links": with `-r` it compressed the
  // file a link led to, and replaced the files of a linked directory outside the roots.
  /\b(compress(es|ing)?|decompress(es|ing)?|process(es|ing)?|read(s|ing)?|copy(ing)?|cop(ies)?) (symbolic |sym)?links\b/i,
];

/** Whether `option` makes the program make symbolic links, or follow them below the paths it is given. */
export function followsLinks(option: OptionSpec): boolean {
  if (NAME.test(option.name)) return true;
  const description = option.description ?? '';
  return PROSE.some((pattern) => pattern.test(description));
}
