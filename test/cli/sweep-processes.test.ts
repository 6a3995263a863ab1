// The /proc sweep signals only the processes of the run: a pid taken by another process since is left alone.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  RUN_MARKER,
  scanStrays,
  signalEach,
  signalStraysNow,
  startTimeOf,
  straysOf,
} from '../../adapters/cli/sweep-processes.js';

const children: number[] = [];
afterEach(() => {
  for (const pid of children.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

function sleeper(): number {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  children.push(child.pid as number);
  return child.pid as number;
}

const isAlive = (pid: number) => startTimeOf(pid) !== 0;

describe.skipIf(process.platform !== 'linux')('sweep', () => {
  it('does not signal a pid whose start time is not the one found', () => {
    const pid = sleeper();
    const startTime = startTimeOf(pid);
    signalEach([{ pid, startTime: startTime + 1 }], 'SIGKILL');
    expect(isAlive(pid)).toBe(true);
  });

  it('does not walk the children of a root pid that another process has taken', () => {
    // The bridge stands for a root whose pid was reused: its children (the sleeper) are not the run's.
    const pid = sleeper();
    const self = { root: process.pid, marker: 'none', since: startTimeOf(process.pid) };
    expect(straysOf(self).map((stray) => stray.pid)).toContain(pid);
    expect(straysOf({ ...self, since: self.since + 1 })).toEqual([]);
  });

  it('finds a process that left the run by its marker, and says when one had no environment to read', async () => {
    const since = startTimeOf(process.pid);
    const run = { root: 1, marker: 'marker-under-test', since };
    const marked = spawn('sleep', ['30'], { stdio: 'ignore', env: { [RUN_MARKER]: run.marker } });
    children.push(marked.pid as number);
    await expect.poll(() => scanStrays(run).strays.map((stray) => stray.pid)).toContain(marked.pid);
    // What a process caught mid-exec shows: no environment at all. The run is then looked at again.
    const bare = spawn('sleep', ['30'], { stdio: 'ignore', env: {} });
    children.push(bare.pid as number);
    await expect.poll(() => scanStrays(run).unsure).toBe(true);
    expect(scanStrays(run).strays.map((stray) => stray.pid)).not.toContain(bare.pid);
  });

  it('signals at once, and looks again while a process shows no environment (the bridge exiting)', async () => {
    const run = { root: 1, marker: 'marker-now', since: startTimeOf(process.pid) };
    const marked = spawn('sleep', ['30'], { stdio: 'ignore', env: { [RUN_MARKER]: run.marker } });
    children.push(marked.pid as number);
    const gone = new Promise((resolve) => marked.once('exit', resolve));
    await expect.poll(() => straysOf(run).length).toBe(1);
    // The stray is stopped by the first scan (a host's own threads may make it look again).
    expect(signalStraysNow(run, 'SIGKILL')).toBeGreaterThanOrEqual(1);
    await gone;
    // A process without an environment stays so: the scans stop at the limit.
    const bare = spawn('sleep', ['30'], { stdio: 'ignore', env: {} });
    children.push(bare.pid as number);
    await expect.poll(() => scanStrays(run).unsure).toBe(true);
    expect(signalStraysNow(run, 'SIGKILL', 3)).toBe(3);
    expect(isAlive(bare.pid as number)).toBe(true);
  });
});
