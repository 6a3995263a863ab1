// A bridge serving a few in-memory tools, started by the tests as a real process (stdio or HTTP).
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { pageOutput, type Source, type ToolDefinition } from '../../src/index.js';
import { isEntryPoint, serveFromArgv } from './serve-from-argv.js';

const annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export const echoTools: ToolDefinition[] = [
  {
    name: 'echo',
    title: 'Echo',
    description: 'Returns its text argument.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, times: { type: 'integer', minimum: 1, maximum: 5 } },
      required: ['text'],
      additionalProperties: false,
    },
    annotations,
    async invoke(args) {
      const times = typeof args.times === 'number' ? args.times : 1;
      return { content: [{ type: 'text', text: String(args.text).repeat(times) }] };
    },
  },
  {
    name: 'add',
    description: 'Adds two integers; returns structured content.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      required: ['a', 'b'],
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'integer' } }, required: ['sum'] },
    annotations,
    async invoke(args) {
      const sum = Number(args.a) + Number(args.b);
      return { content: [{ type: 'text', text: JSON.stringify({ sum }) }], structuredContent: { sum } };
    },
  },
  {
    name: 'fail',
    description: 'Always throws.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
    async invoke() {
      throw new Error('boom: the upstream said no');
    },
  },
  {
    name: 'slow',
    description: 'Waits, reporting progress, until cancelled or done.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' }, steps: { type: 'integer' } } },
    annotations,
    async invoke(args, context) {
      const steps = typeof args.steps === 'number' ? args.steps : 5;
      const ms = typeof args.ms === 'number' ? args.ms : 1000;
      for (let step = 1; step <= steps; step++) {
        await sleep(ms / steps, undefined, { signal: context.signal });
        context.progress({ progress: step, total: steps, message: `step ${step}` });
      }
      return { content: [{ type: 'text', text: 'done' }] };
    },
  },
  {
    name: 'wait_for_abort',
    description: 'Writes MARKER.started, waits until the call is aborted, then writes "aborted" to MARKER.',
    inputSchema: { type: 'object', properties: { marker: { type: 'string' } }, required: ['marker'] },
    annotations,
    async invoke(args, context) {
      writeFileSync(`${String(args.marker)}.started`, 'started');
      await new Promise<void>((resolve) =>
        context.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      writeFileSync(String(args.marker), 'aborted');
      return { content: [{ type: 'text', text: 'aborted' }], isError: true };
    },
  },
  {
    name: 'long',
    description: 'Returns a long numbered text, paged through resources.',
    inputSchema: { type: 'object', properties: { lines: { type: 'integer' } } },
    annotations,
    async invoke(args, context) {
      const lines = typeof args.lines === 'number' ? args.lines : 5000;
      const text = Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join('\n');
      const paged = await pageOutput(text, {
        store: context.resources,
        caller: context.caller,
        label: 'long output',
      });
      return { content: [{ type: 'text', text: paged.firstPage }, ...paged.links] };
    },
  },
];

export const echoSource: Source = { label: 'echo', load: async () => echoTools };

if (isEntryPoint('echo-server.js')) {
  const bridge = await serveFromArgv({ sources: [echoSource] });
  await bridge.closed;
}
