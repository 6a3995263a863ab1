// The bridge the core benchmark drives: one tool that GETs a JSON item from a local upstream.
import { request } from 'undici';
import { parseListenAddress, serve } from '../src/embed.js';
import { silentLogger } from '../src/index.js';

const upstream = process.env.BENCH_UPSTREAM ?? 'http://127.0.0.1:1';

const bridge = await serve({
  log: silentLogger,
  transport: { kind: 'http', address: parseListenAddress('127.0.0.1:0') },
  sources: [
    {
      label: 'bench',
      load: async () => [
        {
          name: 'get_item',
          description: 'Fetches one item from the upstream.',
          inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
          annotations: {
            readOnlyHint: true,
            destructiveHint: false,
            idempotentHint: true,
            openWorldHint: true,
          },
          async invoke(args, context) {
            const response = await request(`${upstream}/items/${Number(args.id)}`, {
              signal: context.signal,
            });
            const body = (await response.body.json()) as Record<string, unknown>;
            return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
          },
        },
      ],
    },
  ],
});
process.stderr.write(`listening ${bridge.url}\n`);
process.once('SIGTERM', () => void bridge.close());
await bridge.closed;
