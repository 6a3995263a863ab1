// The floor of any stdio server making the call: a bare JSON-lines loop that answers initialize,
// tools/list and a tools/call by sending the same GET with undici. No MCP library, no validation,
// no checks: what a bridge costs beyond it is its own work.
import { createInterface } from 'node:readline';
import { request } from 'undici';

const base = process.argv[2] ?? 'http://127.0.0.1:1';

createInterface({ input: process.stdin }).on('line', async (line) => {
  const message = JSON.parse(line) as {
    id?: number;
    method: string;
    params?: { protocolVersion?: string; arguments?: { itemId?: string } };
  };
  if (message.id === undefined) return;
  let result: unknown;
  if (message.method === 'initialize') {
    result = {
      protocolVersion: message.params?.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'bare', version: '1' },
    };
  } else if (message.method === 'tools/list') {
    result = { tools: [{ name: 'getItem', inputSchema: { type: 'object' } }] };
  } else {
    const response = await request(`${base}/items/${message.params?.arguments?.itemId}`, {
      headers: { accept: 'application/json' },
    });
    const text = await response.body.text();
    result = { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) };
  }
  // The id last, as the bench client expects of every server.
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', result, id: message.id })}\n`);
});
