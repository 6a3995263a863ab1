import type { OptionSpec } from './cli-spec.js';

// Options that make a program carry on in a process of its own once the call has ended: wget's
// `-b` (`--background`: it forks, the parent exits and the child, in a session of its own, goes on
// downloading and writes `wget-log` in `cwd`), ssh's `-f`, `--daemon`, `--daemonize`, `--detach`
// where the help says it runs in the background (`docker run -d`, `git gc --detach`). The bridge
// stops what is left when a call ends (see sweep-processes.ts), so the work is cut short, the
// call's timeout no longer bounds it, and with a dangling `wget-log` planted wget spun choosing a
// log name until the call's time limit: such options are dangerous, offered only when
// `--allow-option` names them. Not a bare `--detach` (git's `checkout --detach` detaches HEAD).

const NAME = /^(background|bg|daemon|daemoni[sz]e|go-background|run-in-background)$/i;
const PROSE = [
  /\b(in|into|to) the background\b/i,
  /\b(go(es|ing)?|run(s|ning)?|fork(s|ed|ing)?|put(s|ting)?|mov(e|es|ing)|continu(e|es|ing)|detach(es|ed|ing)?|start(s|ed|ing)?)\b[^.]*?\b(in|into|to) background\b/i,
  /\bdaemoni[sz](e|es|ed|ing)\b/i,
  /\b(as|into|becomes?) an? daemon\b/i,
  /\bdetach(es|ed|ing)? from (the )?(terminal|console|tty|controlling|shell|session|parent)\b/i,
  /\bin detached mode\b/i,
  /\b(keeps?|keeping|stays?|remains?|continues?) (running|alive) after\b/i,
  /\bfork(s|ed|ing)? (the |a |its )?(server|daemon|process|itself|off|into)\b/i,
];

/** Whether `option` makes the program go on in the background after it has returned. */
export function detaches(option: OptionSpec): boolean {
  if (NAME.test(option.name)) return true;
  const description = option.description ?? '';
  return PROSE.some((pattern) => pattern.test(description));
}
