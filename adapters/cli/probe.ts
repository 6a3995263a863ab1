import { runCommand } from './run-command.js';
import type { Sandbox } from './sandbox.js';

/** The environment every process the adapter starts gets: no colour, no pager, no prompts. */
export const QUIET_ENV: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: '1',
  TERM: 'dumb',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  // An editor that changes nothing: a command that would open one finishes instead of hanging.
  GIT_EDITOR: 'true',
  GIT_SEQUENCE_EDITOR: 'true',
  EDITOR: 'true',
  VISUAL: 'true',
  BROWSER: 'false',
});

/** How a discovery command runs. */
export interface ProbeOptions {
  cwd: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Set with `--sandbox`: the probe runs inside it. */
  sandbox?: Sandbox;
  /** Inside the sandbox, the directories the probe may write (git's scratch repository). */
  writable?: readonly string[];
  /**
   * Put before the probe's own arguments: the overlay's `globalArgs`, so the program reads at
   * discovery no configuration a call would not read either (a ~/.wgetrc planted by a command
   * names an `output_document`, which even `wget --version` creates).
   */
  globalArgs?: readonly string[];
}

/** The probe options that run it in the request's sandbox, if any, writing only `scratch`. */
export function sandboxOf(
  request: { sandbox?: Sandbox },
  scratch?: string,
): Pick<ProbeOptions, 'sandbox' | 'writable'> {
  if (!request.sandbox) return {};
  return { sandbox: request.sandbox, ...(scratch ? { writable: [scratch] } : {}) };
}

/** The text of a discovery command, or `undefined` when it timed out or could not start. */
export interface ProbeResult {
  text: string;
  exitCode: number | null;
  timedOut: boolean;
}

/**
 * Runs a discovery command (`git log -h`, `kubectl get --help`) with a short timeout and no stdin,
 * so a command that waits for input or opens a browser is stopped and reported instead of
 * stalling start-up.
 */
export async function probe(binary: string, args: string[], options: ProbeOptions): Promise<ProbeResult> {
  // With --sandbox the program is confined from its first run: its help is read inside the
  // sandbox too, writing nowhere but `writable` (and working in the first of those, else `/`).
  const writable = options.writable ?? [];
  const argv = [...(options.globalArgs ?? []), ...args];
  const run = options.sandbox
    ? options.sandbox.wrap({ file: binary, args: argv, cwd: writable[0] ?? '/', writable })
    : { file: binary, args: argv };
  const outcome = await runCommand({
    file: run.file,
    args: run.args,
    cwd: options.cwd,
    // Help texts in English whatever the user's locale: the parsers read `usage:`, `Commands:`.
    env: { ...QUIET_ENV, LC_ALL: 'C' },
    timeoutMs: options.timeoutMs ?? 5_000,
    graceMs: 500,
    maxBytes: 2 * 1024 * 1024,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const decoder = new TextDecoder();
  const text = decoder.decode(outcome.stdout) + decoder.decode(outcome.stderr);
  return { text, exitCode: outcome.exitCode, timedOut: outcome.timedOut || outcome.spawnError !== undefined };
}

/** Runs `work` over `items` with at most `limit` at a time, keeping the order of the results. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(workers);
  return results;
}

/**
 * Commands whose help one discovery reads at most. Real programs list a few hundred (kubectl ~120,
 * docker ~200); a program listing thousands (a cloud CLI's services and their operations), or one
 * that lists new names at every level, would otherwise run probes for hours. Past it, discovery
 * stops with one warning (see `withinBudget`), and `--allow` names the commands wanted.
 */
export const MAX_HELP_PAGES = 1_000;

/**
 * The commands of the next level whose help `budget` still has room for, taken from it; when some
 * do not fit, one `skipped` entry (the first time only) says so and what to do.
 */
export function withinBudget<T>(
  level: T[],
  budget: { left: number; spent?: boolean },
  skipped: Array<{ path: string[]; reason: string }>,
): T[] {
  if (level.length <= budget.left) {
    budget.left -= level.length;
    return level;
  }
  if (!budget.spent) {
    budget.spent = true;
    skipped.push({
      path: [],
      reason: `discovery stopped after ${MAX_HELP_PAGES.toLocaleString('en-US')} help texts with more commands listed; name the ones you need with --allow`,
    });
  }
  const kept = level.slice(0, budget.left);
  budget.left = 0;
  return kept;
}
