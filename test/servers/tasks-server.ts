// A bridge whose tools run real child processes, some as tasks, started by the task tests as a real
// process (stdio or HTTP). With TASKS_PID_DIR set, every child's pid is written there as an empty
// file, so a test can check that cancelling a task kills its process.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  pageOutput,
  type Source,
  type TaskSupport,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from '../../src/index.js';
import { isEntryPoint, serveFromArgv } from './serve-from-argv.js';

const annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Runs `command`, killing it when the call's signal aborts; resolves with its exit code and output. */
function run(
  command: string,
  args: string[],
  context: ToolContext,
): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { signal: context.signal, stdio: ['ignore', 'pipe', 'ignore'] });
    const pidDir = process.env.TASKS_PID_DIR;
    if (pidDir && child.pid) writeFileSync(join(pidDir, String(child.pid)), '');
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stdout }));
  });
}

function sleepTool(name: string, taskSupport: TaskSupport): ToolDefinition {
  return {
    name,
    description: `Runs \`sleep\` for the given seconds (task support: ${taskSupport}).`,
    inputSchema: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0, maximum: 600 } },
      required: ['seconds'],
      additionalProperties: false,
    },
    annotations,
    taskSupport,
    async invoke(args, context): Promise<ToolResult> {
      await run('sleep', [String(args.seconds)], context);
      return { content: [{ type: 'text', text: `slept ${args.seconds} s` }] };
    },
  };
}

export const taskTools: ToolDefinition[] = [
  {
    name: 'ask_name',
    description: 'Asks the user for a name (form elicitation), then greets them. Runs only as a task.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
    taskSupport: 'required',
    async invoke(_args, context) {
      if (!context.ask) return { content: [{ type: 'text', text: 'no ask' }], isError: true };
      const answer = await context.ask.elicit({
        key: 'who',
        message: 'Who shall I greet?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      if (answer.action !== 'accept') return { content: [{ type: 'text', text: 'declined' }], isError: true };
      return { content: [{ type: 'text', text: `Hello, ${answer.content.name}!` }] };
    },
  },
  {
    name: 'crash',
    description: 'Throws an unexpected error (a bug, not an isError result). Runs only as a task.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
    taskSupport: 'required',
    async invoke() {
      throw new TypeError("Cannot read properties of undefined (reading 'items')");
    },
  },
  sleepTool('sleep', 'optional'),
  sleepTool('sleep_required', 'required'),
  sleepTool('sleep_forbidden', 'forbidden'),
  {
    name: 'exit_code',
    description: 'Runs `sh -c "exit N"`: a non-zero exit is an isError result.',
    inputSchema: { type: 'object', properties: { code: { type: 'integer' } }, required: ['code'] },
    annotations,
    taskSupport: 'optional',
    async invoke(args, context) {
      const { code } = await run('sh', ['-c', `exit ${Number(args.code)}`], context);
      return code === 0
        ? { content: [{ type: 'text', text: 'exit 0' }] }
        : { content: [{ type: 'text', text: `the command exited with ${code}` }], isError: true };
    },
  },
  {
    name: 'steps',
    description: 'Runs `sleep` once per step, reporting progress after each.',
    inputSchema: {
      type: 'object',
      properties: { steps: { type: 'integer', minimum: 1 } },
      required: ['steps'],
    },
    annotations,
    taskSupport: 'optional',
    async invoke(args, context) {
      const steps = Number(args.steps);
      for (let step = 1; step <= steps; step++) {
        await run('sleep', ['0.3'], context);
        context.progress({ progress: step, total: steps, message: `step ${step}` });
      }
      return { content: [{ type: 'text', text: `${steps} steps done` }] };
    },
  },
  {
    name: 'count',
    description: 'Runs `seq 1 N`; long output is paged through resources.',
    inputSchema: { type: 'object', properties: { to: { type: 'integer', minimum: 1 } }, required: ['to'] },
    annotations,
    taskSupport: 'optional',
    async invoke(args, context) {
      const { stdout } = await run('seq', ['1', String(args.to)], context);
      const paged = await pageOutput(stdout, {
        store: context.resources,
        caller: context.caller,
        label: 'seq output',
      });
      return { content: [{ type: 'text', text: paged.firstPage }, ...paged.links] };
    },
  },
  {
    name: 'blob',
    description: 'Returns N mebibytes of structured content, unpaged: a result too large to hold.',
    inputSchema: { type: 'object', properties: { mib: { type: 'number', minimum: 0 } }, required: ['mib'] },
    annotations,
    taskSupport: 'optional',
    async invoke(args) {
      const data = 'x'.repeat(Math.round(Number(args.mib) * 1024 * 1024));
      return { content: [{ type: 'text', text: 'blob' }], structuredContent: { data } };
    },
  },
];

export const taskSource: Source = { label: 'tasks', load: async () => taskTools };

if (isEntryPoint('tasks-server.js')) {
  const bridge = await serveFromArgv({
    sources: [taskSource],
    // Short TTLs allowed, so that the expiry test need not wait long; in the 2026-07-28 era, calls
    // done within 150 ms are answered directly.
    tasks: { minTtlMs: 200, answerWithinMs: 150 },
  });
  await bridge.closed;
}
