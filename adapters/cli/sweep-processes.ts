import { readdirSync, readFileSync } from 'node:fs';

/**
 * The environment variable every command runs with, set to a value unique to the run. A process
 * that left the command's process group (`setsid`, a daemon's double fork) and was reparented away
 * from it still carries the value, so the bridge can find it in /proc and stop it with the rest.
 */
export const RUN_MARKER = 'BRIDGE_RUN_ID';

interface ProcessEntry {
  pid: number;
  ppid: number;
  /** Clock ticks after boot (`/proc/<pid>/stat` field 22): tells a process from a later one with the same pid. */
  startTime: number;
}

/** The process table from /proc (empty where there is no /proc: the group kill is then all there is). */
function processTable(): ProcessEntry[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const table: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readStat(Number(name));
    if (entry) table.push(entry);
  }
  return table;
}

function readStat(pid: number): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields follow the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined; // exited, waiting to be reaped
    return { pid, ppid: Number(fields[1]), startTime: Number(fields[19]) };
  } catch {
    return undefined;
  }
}

/** When `pid` started, in clock ticks after boot, or 0 when it cannot be read. */
export function startTimeOf(pid: number): number {
  return readStat(pid)?.startTime ?? 0;
}

/** A process found by the sweep, with its start time: a pid reused since is never signalled. */
export interface Stray {
  pid: number;
  startTime: number;
}

/**
 * The processes of one run that the process-group kill misses: descendants of `root` in other
 * groups or sessions, and any process started since the run began that carries its marker
 * (reparented to init or a subreaper after its parent exited). Never the bridge itself. The
 * descendants are walked only while `root` is still the run's process, not a later one given its pid.
 */
export function straysOf(run: { root: number; marker: string; since: number }): Stray[] {
  return scanStrays(run).strays;
}

/**
 * `straysOf`, and whether a process started since the run began showed no environment at all: one
 * the scan met in the middle of an `exec` (the kernel fills /proc/PID/environ once the new
 * program's stack is set up), which may carry the marker a moment later.
 */
export function scanStrays(run: { root: number; marker: string; since: number }): {
  strays: Stray[];
  unsure: boolean;
} {
  const table = processTable();
  const found = new Set<number>();
  const children = new Map<number, number[]>();
  for (const entry of table) {
    const list = children.get(entry.ppid) ?? [];
    list.push(entry.pid);
    children.set(entry.ppid, list);
  }
  const root = table.find((entry) => entry.pid === run.root);
  const queue = root && (run.since === 0 || root.startTime === run.since) ? [run.root] : [];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop() as number) ?? []) {
      if (found.has(child)) continue;
      found.add(child);
      queue.push(child);
    }
  }
  const needle = `${RUN_MARKER}=${run.marker}\0`;
  let unsure = false;
  for (const entry of table) {
    if (found.has(entry.pid) || entry.startTime < run.since || entry.pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry.pid}/environ`, 'latin1');
      if (environ.includes(needle)) found.add(entry.pid);
      else if (environ === '') unsure = true;
    } catch {
      // Another user's process, or gone.
    }
  }
  found.delete(run.root);
  found.delete(process.pid);
  const strays = table
    .filter((entry) => found.has(entry.pid))
    .map(({ pid, startTime }) => ({ pid, startTime }));
  return { strays, unsure };
}

/** Sends `signal` to each stray; one gone, or whose pid another process has taken since, is skipped. */
export function signalEach(strays: readonly Stray[], signal: NodeJS.Signals): void {
  for (const { pid, startTime } of strays) {
    if (startTimeOf(pid) !== startTime) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // ESRCH: already gone.
    }
  }
}

/**
 * Signals the run's strays now, and, where the scan met a process in the middle of an `exec` (see
 * `scanStrays`), scans again after a short blocking pause, up to `looks` scans in all: for the
 * bridge's exit, when no later scan can come. Returns the number of scans made.
 */
export function signalStraysNow(
  run: { root: number; marker: string; since: number },
  signal: NodeJS.Signals,
  looks = 3,
): number {
  for (let look = 1; ; look++) {
    const { strays, unsure } = scanStrays(run);
    signalEach(strays, signal);
    if (!unsure || look === looks) return look;
    Atomics.wait(PAUSE, 0, 0, 20);
  }
}
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
