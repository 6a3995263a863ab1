import { randomUUID } from 'node:crypto';
import { execa } from 'execa';
import { commandEnvironment, commandStarted } from '../../src/index.js';
import {
  RUN_MARKER,
  scanStrays,
  signalEach,
  signalStraysNow,
  startTimeOf,
  straysOf,
} from './sweep-processes.js';

/** What to run: always an argv array, never a shell string. */
export interface RunRequest {
  file: string;
  args: string[];
  cwd: string;
  /** Added to the bridge's own environment. */
  env: Record<string, string>;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL. Default 2 s. */
  graceMs?: number;
  /** Aborting it kills the process group (client cancellation, server shutdown). */
  signal?: AbortSignal;
  /** Fed to the process; without it stdin is closed (`ignore`), so nothing can wait for input. */
  stdin?: string;
  /** Bytes kept per stream; beyond it the process is stopped and the result marked truncated. */
  maxBytes?: number;
  /** Called with the number of stdout lines so far (at most every `progressMs`). */
  onLines?: (lines: number) => void;
  progressMs?: number;
  /** The caller's own set of live process groups (one per source), kept in step with the global one. */
  groups?: Set<number>;
  /**
   * Watch what the command changes of the bridge's own files until all its processes are gone
   * (see `commandStarted`), under this label: set for commands a caller's arguments shape.
   */
  guard?: string;
}

/** How a process ended. */
export interface RunOutcome {
  exitCode: number | null;
  signal: string | null;
  stdout: Uint8Array;
  stderr: Uint8Array;
  /** An output stream hit `maxBytes`. */
  truncated: boolean;
  durationMs: number;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the process could not start at all (missing binary, bad cwd). */
  spawnError?: string;
}

/** Process groups still alive, killed when the bridge exits whatever the reason. */
const liveGroups = new Set<number>();
/** The runs behind those groups, for the processes that left them. */
const liveRuns = new Map<number, Run>();

type Run = Parameters<typeof straysOf>[0];
let exitHookInstalled = false;

/**
 * Runs one command in its own process group, so that a timeout, a cancellation or the bridge's exit
 * kills the command's children too (a pager, a credential helper, `sleep` under a shell), not just
 * the direct child. The group gets SIGTERM, then SIGKILL after the grace period. Processes that
 * left the group (`setsid`, daemons) are found in /proc, as descendants or by the run's marker in
 * their environment, and stopped the same way; nothing a command starts outlives its call.
 */
export async function runCommand(request: RunRequest): Promise<RunOutcome> {
  installExitHook();
  const started = performance.now();
  const graceMs = request.graceMs ?? 2_000;
  const marker = randomUUID();
  // Ended once every process of the run is gone: at once, or after the kill of what was left.
  const ended = request.guard === undefined ? () => {} : commandStarted(request.guard);
  const gone = (pid: number) => {
    untrack(pid, request.groups);
    ended();
  };
  const subprocess = execa(request.file, request.args, {
    cwd: request.cwd,
    // The bridge's environment without its own secrets (see `commandEnvironment`), plus the run's.
    env: { ...commandEnvironment(), ...request.env, [RUN_MARKER]: marker },
    extendEnv: false,
    detached: true,
    // Without a shell, `$(…)`, `;` and newlines in arguments are just bytes.
    shell: false,
    encoding: 'buffer',
    stripFinalNewline: false,
    maxBuffer: request.maxBytes ?? 32 * 1024 * 1024,
    reject: false,
    windowsHide: true,
    ...(request.stdin === undefined ? { stdin: 'ignore' as const } : { input: request.stdin }),
  });
  const pid = subprocess.pid;
  let timedOut = false;
  let aborted = false;
  const timers: NodeJS.Timeout[] = [];
  const run: Run | undefined = pid === undefined ? undefined : { root: pid, marker, since: startTimeOf(pid) };
  const terminate = () => {
    if (pid === undefined || run === undefined) return;
    const strays = straysOf(run);
    signalGroup(pid, 'SIGTERM');
    signalEach(strays, 'SIGTERM');
    const timer = setTimeout(() => {
      signalGroup(pid, 'SIGKILL');
      signalEach([...strays, ...straysOf(run)], 'SIGKILL');
      gone(pid);
    }, graceMs);
    timer.unref();
    timers.push(timer);
  };
  if (pid !== undefined && run !== undefined) {
    liveGroups.add(pid);
    liveRuns.set(pid, run);
    request.groups?.add(pid);
  }
  const timeout = setTimeout(() => {
    timedOut = true;
    terminate();
  }, request.timeoutMs);
  const onAbort = () => {
    aborted = true;
    terminate();
  };
  if (request.signal?.aborted) onAbort();
  else request.signal?.addEventListener('abort', onAbort, { once: true });
  // When the direct child is gone, whatever it left behind in its group (a background job holding
  // the output pipe open) is stopped too: nothing outlives the call.
  // A process that left the group may hold the output pipe open too: it is stopped the same way.
  // A scan that met a process mid-`exec` is looked at again once the run is found clean (`lookAgain`).
  let unsure = false;
  const leftovers = () => {
    if (pid === undefined || run === undefined) return false;
    if (groupAlive(pid)) return true;
    const scan = scanStrays(run);
    unsure ||= scan.unsure;
    return scan.strays.length > 0;
  };
  // The /proc scan costs a few milliseconds: at the exit it runs only when the output has not
  // closed shortly after, which is when a stray is holding it.
  let finished = false;
  subprocess.once('exit', () => {
    if (pid !== undefined && groupAlive(pid)) return terminate();
    const timer = setTimeout(() => {
      if (!finished && leftovers()) terminate();
    }, 100);
    timer.unref();
    timers.push(timer);
  });
  const stopProgress = countLines(subprocess.stdout, request);

  const result = await subprocess;
  finished = true;
  clearTimeout(timeout);
  stopProgress();
  request.signal?.removeEventListener('abort', onAbort);
  if (pid !== undefined) {
    if (leftovers()) terminate();
    else {
      for (const timer of timers) clearTimeout(timer);
      gone(pid);
      if (unsure && run !== undefined) lookAgain(run, graceMs);
    }
  } else {
    ended();
  }
  const outcome: RunOutcome = {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    stdout: toBytes(result.stdout),
    stderr: toBytes(result.stderr),
    truncated: result.isMaxBuffer === true,
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    timedOut,
    aborted,
  };
  if (pid === undefined || (result.failed && result.exitCode === undefined && !result.signal)) {
    outcome.spawnError = result.originalMessage || result.shortMessage || 'the process could not start';
  }
  return outcome;
}

/**
 * A run found clean by a scan that met a process in the middle of an `exec` (see `scanStrays`) may
 * still have a stray that has just left the group (`setsid sh -c 'sleep 1000 & exec sleep 1000'`,
 * under load). One more scan, shortly after, stops what it finds; it keeps nothing alive.
 */
function lookAgain(run: Run, graceMs: number): void {
  setTimeout(() => {
    const strays = straysOf(run);
    if (strays.length === 0) return;
    signalEach(strays, 'SIGTERM');
    setTimeout(() => signalEach([...strays, ...straysOf(run)], 'SIGKILL'), graceMs).unref();
  }, LOOK_AGAIN_MS).unref();
}
const LOOK_AGAIN_MS = 150;

/** Kills the process groups of `groups` still running (one source's), or all of them (bridge exit). */
export function killAllGroups(signal: NodeJS.Signals = 'SIGKILL', groups: Set<number> = liveGroups): void {
  for (const pid of [...groups]) {
    signalGroup(pid, signal);
    const run = liveRuns.get(pid);
    // No later scan will come: one that met a process mid-exec looks again at once.
    if (run) signalStraysNow(run, signal);
    untrack(pid, groups);
  }
}

function untrack(pid: number, groups: Set<number> | undefined): void {
  liveGroups.delete(pid);
  liveRuns.delete(pid);
  groups?.delete(pid);
}

function countLines(stream: NodeJS.ReadableStream | null, request: RunRequest): () => void {
  const onLines = request.onLines;
  if (!onLines || !stream) return () => {};
  let lines = 0;
  let reported = 0;
  const onData = (chunk: Uint8Array) => {
    for (const byte of chunk) if (byte === 10) lines++;
  };
  stream.on('data', onData);
  const timer = setInterval(() => {
    if (lines > reported) {
      reported = lines;
      onLines(lines);
    }
  }, request.progressMs ?? 250);
  timer.unref();
  return () => {
    clearInterval(timer);
    stream.off('data', onData);
  };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function toBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return new TextEncoder().encode(value);
  return new Uint8Array(0);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // `exit` handlers run synchronously, which `process.kill` is: no group survives the bridge.
  process.once('exit', () => killAllGroups('SIGKILL'));
}
