// Tasks benchmark: 1,000 tasks in flight at once, each a real `sleep` process, served over
// Streamable HTTP in this process (so the heap can be measured) to the v1 SDK client. Measures the
// heap each task costs the server and `tasks/get` latency while they all run, beside `ping` in the
// same session as the floor; then cancels them all and checks every process is gone.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { serve } from '../src/embed.js';
import { silentLogger, type ToolDefinition } from '../src/index.js';
import { type Measurement, percentile, report } from './_report.js';

// The v1 client's HTTP transport adds an abort listener to one signal per request it sends and
// Node warns past 1,500 of them: client-side noise, not the server under test.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name !== 'MaxListenersExceededWarning') process.stderr.write(`${warning.stack ?? warning}\n`);
});

const TASKS = 1_000;
const SAMPLES = 2_000;
const CREATE_CONCURRENCY = 50;

const pids: number[] = [];
const sleeper: ToolDefinition = {
  name: 'sleep',
  description: 'Runs `sleep` until cancelled.',
  inputSchema: { type: 'object', properties: { seconds: { type: 'number' } }, required: ['seconds'] },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  taskSupport: 'optional',
  invoke(args, context) {
    return new Promise((resolve, reject) => {
      const child = spawn('sleep', [String(args.seconds)], { signal: context.signal, stdio: 'ignore' });
      if (child.pid) pids.push(child.pid);
      child.once('error', reject);
      child.once('close', () => resolve({ content: [{ type: 'text', text: 'done' }] }));
    });
  },
};

const gc = (globalThis as { gc?: () => void }).gc;
const heap = async () => {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await sleep(20);
  }
  return process.memoryUsage().heapUsed;
};

const bridge = await serve({
  sources: [{ label: 'bench', load: async () => [sleeper] }],
  log: silentLogger,
  transport: { kind: 'http', address: { host: '127.0.0.1', port: 0 } },
  // One client runs them all: lift the per-caller cap of running tasks (32 by default).
  tasks: { maxRunningPerCaller: TASKS },
});
const client = new Client({ name: 'bench', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(String(bridge.url))));

/** Latencies in ms of SAMPLES sequential calls after a warm-up. */
async function latencies(call: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 200; i++) await call(i);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    await call(i);
    samples.push(performance.now() - t0);
  }
  return samples;
}

const before = await heap();
const ids: string[] = [];
let next = 0;
await Promise.all(
  Array.from({ length: CREATE_CONCURRENCY }, async () => {
    while (next < TASKS) {
      next++;
      const created = await client.request(
        { method: 'tools/call', params: { name: 'sleep', arguments: { seconds: 300 }, task: {} } },
        CreateTaskResultSchema,
      );
      ids.push(created.task.taskId);
    }
  }),
);
while (pids.length < TASKS) await sleep(20);
const perTask = ((await heap()) - before) / TASKS;

const floor = await latencies(() => client.ping());
const gets = await latencies(async (i) => {
  const task = await client.experimental.tasks.getTask(ids[i % ids.length] as string);
  if (task.status !== 'working') throw new Error(`task ${task.taskId} is ${task.status}, expected working`);
});

// Cancel everything: every process must be gone.
for (const id of ids) await client.experimental.tasks.cancelTask(id);
const alive = () =>
  pids.filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
const deadline = Date.now() + 10_000;
while (alive().length > 0 && Date.now() < deadline) await sleep(50);
const leftover = alive().length;

await client.close();
await bridge.close();

const measurements: Measurement[] = [
  { name: `heap per running task (${TASKS} in flight)`, value: perTask / 1024, unit: 'KiB', max: 64 },
  {
    name: 'tasks/get p50',
    value: percentile(gets, 50),
    unit: 'ms',
    floor: percentile(floor, 50),
    maxRatio: 3,
  },
  {
    name: 'tasks/get p99',
    value: percentile(gets, 99),
    unit: 'ms',
    floor: percentile(floor, 99),
    maxRatio: 4,
  },
  { name: 'processes left after cancelling every task', value: leftover, unit: '', max: 0 },
];
process.exitCode = report(measurements) ? 0 : 1;
