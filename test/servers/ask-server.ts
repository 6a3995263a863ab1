// A bridge whose tools ask the client (elicitation, sampling, roots), started by the tests as a
// real process. Tools that act write MARKER files, so tests can check what ran and how often.
import { appendFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Source, type ToolDefinition, textResult } from '../../src/index.js';
import { isEntryPoint, serveFromArgv } from './serve-from-argv.js';

const annotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
const nameForm = {
  type: 'object' as const,
  properties: { name: { type: 'string', minLength: 1 } },
  required: ['name'],
};

export const askTools: ToolDefinition[] = [
  {
    name: 'greet',
    description: 'Asks the user for a name, then appends "hello NAME" to MARKER.',
    inputSchema: { type: 'object', properties: { marker: { type: 'string' } }, required: ['marker'] },
    annotations,
    taskSupport: 'optional',
    async invoke(args, context) {
      if (!context.ask) return textResult('no ask', true);
      const answer = await context.ask.elicit({
        key: 'who',
        message: 'Who shall I greet?',
        requestedSchema: nameForm,
      });
      if (answer.action !== 'accept') return textResult(`The user chose to ${answer.action}.`, true);
      appendFileSync(String(args.marker), `hello ${answer.content.name}\n`);
      return textResult(`Hello, ${answer.content.name}!`);
    },
  },
  {
    name: 'two_steps',
    description: 'Asks a name, then a color (two rounds), then appends both to MARKER.',
    inputSchema: { type: 'object', properties: { marker: { type: 'string' } }, required: ['marker'] },
    annotations,
    async invoke(args, context) {
      if (!context.ask) return textResult('no ask', true);
      const name = await context.ask.elicit({
        key: 'name',
        message: 'Your name?',
        requestedSchema: nameForm,
      });
      const color = await context.ask.elicit({
        key: 'color',
        message: 'Your favourite color?',
        requestedSchema: {
          type: 'object',
          properties: { color: { type: 'string', enum: ['red', 'blue'] } },
          required: ['color'],
        },
      });
      if (name.action !== 'accept' || color.action !== 'accept') return textResult('declined', true);
      appendFileSync(String(args.marker), `${name.content.name} likes ${color.content.color}\n`);
      return textResult(`${name.content.name} likes ${color.content.color}`);
    },
  },
  {
    name: 'all_at_once',
    description: 'Asks a name, a completion and the roots in one round.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
    async invoke(_args, context) {
      if (!context.ask) return textResult('no ask', true);
      const [name, sample, roots] = await Promise.all([
        context.ask.elicit({ key: 'name', message: 'Your name?', requestedSchema: nameForm }),
        context.ask.sample({
          key: 'poem',
          messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
          maxTokens: 20,
        }),
        context.ask.roots({ key: 'roots' }),
      ]);
      const who = name.action === 'accept' ? name.content.name : '?';
      const said = Array.isArray(sample.content) ? '' : String(sample.content.text);
      return textResult(`${who} / ${said} / ${roots.map((root) => root.uri).join(',')}`);
    },
  },
  {
    name: 'make_note',
    description: 'Appends "TITLE (PRIORITY)" to MARKER; asks the user for a missing title or priority.',
    inputSchema: {
      type: 'object',
      properties: {
        marker: { type: 'string' },
        title: { type: 'string', minLength: 1, description: 'What the note says' },
        priority: { type: 'integer', minimum: 1, maximum: 5 },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['marker', 'title', 'priority'],
    },
    annotations,
    askMissing: true,
    async invoke(args) {
      appendFileSync(String(args.marker), `${args.title} (${args.priority})\n`);
      return textResult(`noted ${args.title}`);
    },
  },
  {
    name: 'note_task',
    description: 'Like make_note, but runs only as a task.',
    inputSchema: {
      type: 'object',
      properties: {
        marker: { type: 'string' },
        title: { type: 'string', minLength: 1, description: 'What the note says' },
      },
      required: ['marker', 'title'],
    },
    annotations,
    askMissing: true,
    taskSupport: 'required',
    async invoke(args) {
      appendFileSync(String(args.marker), `${args.title}\n`);
      return textResult(`noted ${args.title}`);
    },
  },
  {
    name: 'sign_in',
    description: 'Asks the user to open a sign-in page (URL elicitation), then says it is done.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
    async invoke(_args, context) {
      if (!context.ask) return textResult('no ask', true);
      const answer = await context.ask.elicitUrl({
        key: 'login',
        message: 'Sign in to the example service',
        url: 'https://example.com/login?state=abc',
      });
      if (answer.action !== 'accept') return textResult(`The user chose to ${answer.action}.`, true);
      if (answer.elicitationId) await context.ask.urlCompleted(answer.elicitationId);
      return textResult(`signed in${answer.elicitationId ? ` (${answer.elicitationId})` : ''}`);
    },
  },
  {
    name: 'ask_while_busy',
    description: 'Asks a name and, while the question waits, reports progress and writes MARKER.progressed.',
    inputSchema: { type: 'object', properties: { marker: { type: 'string' } }, required: ['marker'] },
    annotations,
    taskSupport: 'optional',
    async invoke(args, context) {
      if (!context.ask) return textResult('no ask', true);
      const answer = context.ask.elicit({ key: 'who', message: 'Who is asking?', requestedSchema: nameForm });
      await sleep(20);
      context.progress({ progress: 1, message: 'still counting' });
      writeFileSync(`${String(args.marker)}.progressed`, 'yes');
      const given = await answer;
      return textResult(given.action === 'accept' ? `Counted for ${given.content.name}.` : 'declined');
    },
  },
  {
    name: 'quiet',
    description: 'Reports one progress, then works silently for MS milliseconds.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
    annotations,
    async invoke(args, context) {
      context.progress({ progress: 5, message: '5 lines of output so far' });
      await sleep(Number(args.ms), undefined, { signal: context.signal });
      return textResult('done');
    },
  },
  {
    name: 'client_roots',
    description: "Returns the client's file roots as the core resolves them for path-confined tools.",
    inputSchema: { type: 'object', properties: {} },
    annotations,
    async invoke(_args, context) {
      const roots = await context.roots?.();
      return textResult(roots === undefined ? 'no roots' : roots.join(','));
    },
  },
];

export const askSource: Source = { label: 'ask', load: async () => askTools };

if (isEntryPoint('ask-server.js')) {
  const timeout = process.env.ASK_TIMEOUT_MS;
  const keepAlive = process.env.KEEPALIVE_MS;
  const bridge = await serveFromArgv({
    sources: [askSource],
    ...(timeout ? { ask: { timeoutMs: Number(timeout) } } : {}),
    ...(keepAlive ? { progressKeepAliveMs: Number(keepAlive) } : {}),
  });
  await bridge.closed;
}
