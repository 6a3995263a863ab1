// What a benchmark's server process spends between a `start` and a `stop` message from its parent
// (over the IPC channel): CPU time, and bytes allocated on the JS heap (from V8's GC records: what
// the heap grew by before each collection, plus the growth since the last one).
import { GCProfiler, getHeapStatistics } from 'node:v8';

/** What a server process reports for one measured stretch. */
export interface ServerCost {
  cpuMicros: number;
  allocatedBytes: number;
}

/** Answers the parent's `start` / `stop` messages; does nothing without an IPC channel. */
export function answerMeterRequests(): void {
  if (!process.send) return;
  let profiler: GCProfiler | undefined;
  let cpu = process.cpuUsage();
  let heapAtStart = 0;
  process.on('message', (message) => {
    if (message === 'start') {
      profiler = new GCProfiler();
      profiler.start();
      heapAtStart = getHeapStatistics().used_heap_size;
      cpu = process.cpuUsage();
    } else if (message === 'stop' && profiler) {
      const used = process.cpuUsage(cpu);
      const heapAtEnd = getHeapStatistics().used_heap_size;
      let allocated = 0;
      let previous = heapAtStart;
      for (const gc of profiler.stop()?.statistics ?? []) {
        allocated += usedOf(gc.beforeGC.heapStatistics) - previous;
        previous = usedOf(gc.afterGC.heapStatistics);
      }
      allocated += heapAtEnd - previous;
      const cost: ServerCost = { cpuMicros: used.user + used.system, allocatedBytes: allocated };
      process.send?.(cost);
    }
  });
  // The channel must not keep the process alive once the bridge is closed.
  process.channel?.unref();
}

// The profiler's records name their fields in camelCase, unlike `getHeapStatistics` (and its types).
function usedOf(statistics: object): number {
  return (statistics as { usedHeapSize: number }).usedHeapSize;
}
