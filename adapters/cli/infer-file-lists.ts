import type { OptionSpec } from './cli-spec.js';

// Options whose value is a file listing more files to read or write: tar's `--files-from` (-T),
// rsync's `--files-from`, zstd's `--filelist`, du's, wc's and sort's `--files0-from`. The list
// itself is a path the checks confine, but the names inside it (or on stdin, `-T -`) reach no
// check: `tar -c -f - -T -` with `/etc/shadow` on stdin archives it, `zstd --filelist` compresses
// (and with `--rm` deletes) whatever it names. Offered, any of them would read or write past the
// roots: they are dangerous options, offered only when `--allow-option` names them (git's pathspec
// files stay: git holds pathspecs to the repository itself).

const NAME = /^(files0?-from|file-?list|files-?list)$/i;
const PROSE = [
  /\b(file ?names|names of (the )?(input )?files|list of (the )?(input )?files)\b[^.]*\b(from|in)\b/i,
  /\bnames\b[^.]*\bfrom\b[^.]*\bfile\b/i,
];

/** Whether `option` takes a file that lists the files the program works on. */
export function listsFiles(option: OptionSpec): boolean {
  if (option.kind === 'boolean') return false;
  if (NAME.test(option.name)) return true;
  const description = option.description ?? '';
  return PROSE.some((pattern) => pattern.test(description));
}
