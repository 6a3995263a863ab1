// The real command line (`runCli`, so every authentication flag is parsed as in `bridge`) serving
// a `notes` command: read-only tools, a write tool, and a tool that says who is calling.
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { type AdapterCommand, pageOutput, type ToolDefinition } from '../../src/index.js';
import { runCli } from '../../src/run-cli.js';

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const notes = new Map<string, string>();

const tools: ToolDefinition[] = [
  {
    name: 'echo',
    description: 'Returns its text argument.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: readOnly,
    taskSupport: 'optional',
    async invoke(args) {
      return { content: [{ type: 'text', text: String(args.text) }] };
    },
  },
  {
    name: 'whoami',
    description: 'Returns the caller identity the bridge bound this call to.',
    inputSchema: { type: 'object', properties: {} },
    annotations: readOnly,
    async invoke(_args, context) {
      return { content: [{ type: 'text', text: context.caller }] };
    },
  },
  {
    name: 'long',
    description: 'Returns a long text; later pages are resources bound to the caller.',
    inputSchema: { type: 'object', properties: {} },
    annotations: readOnly,
    async invoke(_args, context) {
      const text = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join('\n');
      const paged = await pageOutput(text, {
        store: context.resources,
        caller: context.caller,
        label: 'long output',
      });
      return { content: [{ type: 'text', text: paged.firstPage }, ...paged.links] };
    },
  },
  {
    name: 'wait',
    description:
      'Writes MARKER.started (when given), then waits ms (default 60 s) or until the call is aborted (with ignoreAbort, the whole ms, then writes MARKER.done).',
    inputSchema: {
      type: 'object',
      properties: { ms: { type: 'integer' }, marker: { type: 'string' }, ignoreAbort: { type: 'boolean' } },
    },
    annotations: readOnly,
    async invoke(args, context) {
      if (typeof args.marker === 'string') writeFileSync(`${args.marker}.started`, 'started');
      const ms = typeof args.ms === 'number' ? args.ms : 60_000;
      if (args.ignoreAbort === true) {
        await sleep(ms);
        if (typeof args.marker === 'string') writeFileSync(`${args.marker}.done`, 'done');
        return { content: [{ type: 'text', text: 'waited, whatever the abort' }] };
      }
      await sleep(ms, undefined, { signal: context.signal }).catch(() => {});
      return { content: [{ type: 'text', text: context.signal.aborted ? 'aborted' : 'waited' }] };
    },
  },
  {
    name: 'write_note',
    description: 'Stores a note (not read-only: needs the write scope).',
    inputSchema: {
      type: 'object',
      properties: { key: { type: 'string' }, text: { type: 'string' } },
      required: ['key', 'text'],
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async invoke(args) {
      notes.set(String(args.key), String(args.text));
      return { content: [{ type: 'text', text: `stored ${String(args.key)}` }] };
    },
  },
];

const notesCommand: AdapterCommand<Record<string, never>> = {
  name: 'notes',
  summary: 'A few in-memory tools for the authentication tests.',
  usage: 'Usage: auth-server notes [flags]',
  options: {},
  parseFlags: () => ({}),
  configSchema: z.object({}) as unknown as z.ZodType<Record<string, never>>,
  createSource: () => ({ label: 'notes', load: async () => tools }),
};

process.exitCode = await runCli(process.argv.slice(2), { notes: async () => notesCommand as AdapterCommand });
