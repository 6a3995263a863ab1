import { join } from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeYaml } from '../config/helpers.js';
import { confirming, connect } from '../helpers/connect.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';
import { FIXTURES } from '../openapi/helpers/in-process.js';
import { startUpstream, type Upstream } from '../openapi/helpers/upstream.js';

const SPEC = join(FIXTURES, 'api-3.0.yaml');

const text = (result: { content: Array<Record<string, unknown>> }) => String(result.content[0]?.text);

// What a config sets per tool must hold for the operations that dynamic mode's meta-tools reach
// by name, exactly as for the same operations listed one tool each.
describe('config policy in OpenAPI dynamic mode', () => {
  let upstream: Upstream;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    upstream = await startUpstream();
    dir = await tempDir();
  });
  afterAll(async () => {
    await upstream?.close();
    await dir?.[Symbol.asyncDispose]();
  });

  const seen = (method: string, path: string) =>
    upstream.requests.filter((request) => request.method === method && request.url.endsWith(path));

  /** `bridge serve` of a config with one OpenAPI source over the fixture spec. */
  async function configBridge(name: string, source: Record<string, unknown>, server: object = {}) {
    const file = dir.file(`${name}.yaml`);
    await writeYaml(file, {
      server,
      sources: [
        {
          kind: 'openapi',
          ...source,
          options: { spec: SPEC, baseUrl: upstream.url, ...(source.options as object) },
        },
      ],
    });
    return { script: BRIDGE_BIN, args: ['serve', file, '--no-watch'], env: { BRIDGE_CACHE_DIR: dir.path } };
  }

  it('neither finds, describes nor runs an excluded operation', async () => {
    const bridge = await configBridge('exclude', { exclude: ['delete*'], options: { tools: 'dynamic' } });
    await using client = await connect('v2', 'http', bridge);
    const found = text(await client.callTool('search_operations', { query: 'item', limit: 50 }));
    expect(found).toContain('getItem');
    expect(found).not.toContain('deleteItem');
    const described = await client.callTool('describe_operation', { operation: 'deleteItem' });
    expect(described.isError).toBe(true);
    expect(text(described)).toContain('No operation is named "deleteItem"');
    const called = await client.callTool('call_operation', {
      operation: 'deleteItem',
      arguments: { itemId: 'victim' },
    });
    expect(called.isError).toBe(true);
    expect(text(called)).toContain('No operation is named "deleteItem"');
    expect(seen('DELETE', '/items/victim')).toEqual([]);
    // What is not excluded still runs, and no start-up warning mistakes the operations for absent.
    const read = await client.callTool('call_read_operation', {
      operation: 'getItem',
      arguments: { itemId: 'kept' },
    });
    expect(read.isError).toBeFalsy();
    expect(seen('GET', '/items/kept')).toHaveLength(1);
  });

  it('serves only included operations, with the meta-tools the include keeps', async () => {
    const bridge = await configBridge('include', {
      include: ['getItem', '*_operation*'],
      options: { tools: 'dynamic' },
    });
    await using client = await connect('v2', 'http', bridge);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'call_operation',
      'call_read_operation',
      'describe_operation',
      'search_operations',
    ]);
    expect(text(await client.callTool('search_operations', { query: 'item', limit: 50 }))).toMatch(
      /^getItem: GET \/items\/\{itemId\}[^\n]*$/,
    );
    const called = await client.callTool('call_operation', { operation: 'createItem', arguments: {} });
    expect(text(called)).toContain('No operation is named "createItem"');
    expect(seen('POST', '/items')).toEqual([]);
  });

  it('asks for a per-tool confirm with the words of the listed tool, and runs nothing when declined', async () => {
    const source = { tools: { replaceItem: { confirm: 'always' } } };
    const listedOffer = confirming({ action: 'decline' });
    const dynamicOffer = confirming({ action: 'decline' });
    const listedBridge = await configBridge('confirm-all', { ...source, options: { tools: 'all' } });
    const dynamicBridge = await configBridge('confirm-dynamic', { ...source, options: { tools: 'dynamic' } });
    await using listed = await connect('v2', 'http', listedBridge, listedOffer);
    await using dynamic = await connect('v2', 'http', dynamicBridge, dynamicOffer);
    const args = { itemId: 'declined', body: { name: 'Lamp', price: 3, kind: { type: 'tool' } } };
    const direct = await listed.callTool('replaceItem', args);
    const through = await dynamic.callTool('call_operation', { operation: 'replaceItem', arguments: args });
    expect(text(through)).toBe('The user declined the call to replaceItem; nothing was run.');
    expect(text(through)).toBe(text(direct));
    expect(dynamicOffer.shown).toHaveLength(1);
    expect(dynamicOffer.shown).toEqual(listedOffer.shown);
    expect(dynamicOffer.shown[0]).toContain(`It will run: PUT ${upstream.url}/items/declined`);
    expect(dynamic.stderr()).not.toContain('overrides a tool the source does not have');
    expect(seen('PUT', '/items/declined')).toEqual([]);
    // Operations the override does not name run unasked, as listed tools do.
    await dynamic.callTool('call_operation', {
      operation: 'patchItem',
      arguments: { itemId: 'free', body: {} },
    });
    expect(dynamicOffer.shown).toHaveLength(1);
    expect(seen('PATCH', '/items/free')).toHaveLength(1);
  });

  it('asks once, for the operation, under the server-wide confirm: destructive', async () => {
    const offer = confirming({ action: 'accept', content: { confirm: true } });
    const bridge = await configBridge(
      'destructive',
      { options: { tools: 'dynamic' }, tools: { createItem: { annotations: { destructiveHint: true } } } },
      { confirm: 'destructive' },
    );
    await using client = await connect('v2', 'http', bridge, offer);
    const deleted = await client.callTool('call_operation', {
      operation: 'deleteItem',
      arguments: { itemId: 'confirmed' },
    });
    expect(deleted.isError).toBeFalsy();
    expect(offer.shown).toHaveLength(1);
    expect(offer.shown[0]).toContain('Allow the tool "deleteItem" to run?');
    expect(seen('DELETE', '/items/confirmed')).toHaveLength(1);
    // An annotation override that makes an operation destructive makes it ask too.
    await client.callTool('call_operation', {
      operation: 'createItem',
      arguments: { body: { name: 'Nut', price: 1, kind: { type: 'toy' } } },
    });
    expect(offer.shown).toHaveLength(2);
    expect(offer.shown[1]).toContain('Allow the tool "createItem" to run?');
    // Reads ask nothing.
    await client.callTool('call_read_operation', { operation: 'getItem', arguments: { itemId: 'read' } });
    expect(offer.shown).toHaveLength(2);
  });

  it("needs an operation's own scopes to run it through call_operation", async () => {
    const bridge = await configBridge('scopes', { options: { tools: 'dynamic' } });
    const WRITER = 'writer-0123456789abcdef';
    const ADMIN = 'admin-0123456789abcdef';
    await using server = await startHttpBridge({
      ...bridge,
      args: [...bridge.args, '--auth-tokens-env', 'TOKENS', '--tool-scope', 'deleteItem=admin'],
      env: { ...bridge.env, TOKENS: `${WRITER} writer read,write\n${ADMIN} admin read,write,admin` },
    });
    const remove = (token: string, itemId: string) =>
      modernRequest(
        server.url,
        'tools/call',
        { name: 'call_operation', arguments: { operation: 'deleteItem', arguments: { itemId } } },
        { headers: { authorization: `Bearer ${token}` } },
      );
    const refused = await remove(WRITER, 'guarded');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('insufficient_scope');
    expect(refused.text).toContain('Calling \\"call_operation\\" (running \\"deleteItem\\") needs the scope');
    expect(seen('DELETE', '/items/guarded')).toEqual([]);
    const allowed = await remove(ADMIN, 'guarded');
    expect(allowed.status).toBe(200);
    expect(seen('DELETE', '/items/guarded')).toHaveLength(1);
  });

  it('never asks which operation to run: an answer naming one would pass by its scopes', async () => {
    const bridge = await configBridge('ask-scopes', { options: { tools: 'dynamic' } }, { askMissing: true });
    const WRITER = 'writer-0123456789abcdef';
    await using server = await startHttpBridge({
      ...bridge,
      args: [...bridge.args, '--auth-tokens-env', 'TOKENS', '--tool-scope', 'deleteItem=admin'],
      env: { ...bridge.env, TOKENS: `${WRITER} writer read,write` },
    });
    const authorization = `Bearer ${WRITER}`;
    // 2026-07-28: the answer to the question sent ahead, in the same request.
    const modern = await modernRequest(
      server.url,
      'tools/call',
      {
        name: 'call_operation',
        arguments: { arguments: { itemId: 'asked-modern' } },
        inputResponses: {
          bridge_missing_arguments: { action: 'accept', content: { operation: 'deleteItem' } },
        },
      },
      { headers: { authorization }, capabilities: { elicitation: { form: {} } } },
    );
    expect(modern.status).toBe(200);
    expect(modern.json?.result?.isError).toBe(true);
    expect(modern.text).toContain('operation');
    // The initialize era: a client that answers the question when it is asked.
    const asked: string[] = [];
    const client = new ClientV1(
      { name: 'answering', version: '1' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { operation: 'deleteItem' } };
    });
    await client.connect(new HttpV1(new URL(server.url), { requestInit: { headers: { authorization } } }));
    try {
      const legacy = await client.callTool({
        name: 'call_operation',
        arguments: { arguments: { itemId: 'asked-legacy' } },
      });
      expect(legacy.isError).toBe(true);
      expect(asked).toEqual([]);
    } finally {
      await client.close();
    }
    expect(seen('DELETE', '/items/asked-modern')).toEqual([]);
    expect(seen('DELETE', '/items/asked-legacy')).toEqual([]);
    // The operations themselves still ask for what they miss, under their own scopes.
    const read = await modernRequest(
      server.url,
      'tools/call',
      {
        name: 'call_read_operation',
        arguments: { operation: 'getItem', arguments: {} },
        inputResponses: { bridge_missing_arguments: { action: 'accept', content: { itemId: 'filled' } } },
      },
      { headers: { authorization }, capabilities: { elicitation: { form: {} } } },
    );
    expect(read.json?.result?.isError).toBeFalsy();
    expect(seen('GET', '/items/filled')).toHaveLength(1);
  });
});
