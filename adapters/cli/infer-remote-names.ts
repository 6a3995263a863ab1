import type { OptionSpec } from './cli-spec.js';

// Options that make a downloader name the file it writes after the remote one: curl's
// `--remote-name` (-O), `--remote-name-all` and `--remote-header-name` (-J), wget's
// `--content-disposition` and `--trust-server-names`. The name comes from the URL, a redirect or
// the server's headers, never from an argument a check reads, and the program opens it through any
// symbolic link already there: a clone bringing `pwn -> /home/u/.bashrc`, then `curl -O
// https://host/pwn`, writes outside the roots. Offered only when `--allow-option` names them
// (and then only `--sandbox` stops such a write); `--output` names the file instead.

const NAME = /^(remote-name|remote-name-all|remote-header-name|content-disposition|trust-server-names)$/i;
const PROSE = [
  /\bnamed (as|after|like) the remote\b/i,
  /\bremote file ?names?\b/i,
  /\b(header|server)-(provided|supplied|given) file ?names?\b/i,
  /\bcontent-disposition\b[^.]*\bfile ?names?\b/i,
];

/** Whether `option` makes the program name a file it writes after the remote resource. */
export function namesAfterRemote(option: OptionSpec): boolean {
  if (NAME.test(option.name)) return true;
  const description = option.description ?? '';
  return PROSE.some((pattern) => pattern.test(description));
}
