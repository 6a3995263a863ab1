// The bridge the core and stores benchmarks drive: one tool that GETs a JSON item from a local
// upstream, and one that runs as a task until cancelled; BENCH_STORE shares the stores (Redis).
import { request } from 'undici';
import { parseListenAddress, serve } from '../src/embed.js';
import { silentLogger } from '../src/index.js';
import { answerMeterRequests } from './_server-meter.js';

const upstream = process.env.BENCH_UPSTREAM ?? 'http://127.0.0.1:1';

const annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const store = process.env.BENCH_STORE;
const bridge = await serve({
  log: silentLogger,
  ...(store ? { store } : {}),
  transport: { kind: 'http', address: parseListenAddress('127.0.0.1:0') },
  sources: [
    {
      label: 'bench',
      load: async () => [
        {
          name: 'get_item',
          description: 'Fetches one item from the upstream.',
          inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
          annotations,
          async invoke(args, context) {
            const response = await request(`${upstream}/items/${Number(args.id)}`, {
              signal: context.signal,
            });
            const body = (await response.body.json()) as Record<string, unknown>;
            return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
          },
        },
        {
          name: 'wait',
          description: 'Waits until cancelled (at most 10 minutes); runs only as a task.',
          inputSchema: { type: 'object', properties: {} },
          annotations,
          taskSupport: 'required' as const,
          async invoke(_args, context) {
            await new Promise((resolve) => {
              const timer = setTimeout(resolve, 600_000);
              context.signal.addEventListener('abort', () => resolve(clearTimeout(timer)), { once: true });
            });
            return { content: [{ type: 'text', text: 'done' }] };
          },
        },
      ],
    },
  ],
});
answerMeterRequests();
process.stderr.write(`listening ${bridge.url}\n`);
process.once('SIGTERM', () => void bridge.close());
await bridge.closed;
