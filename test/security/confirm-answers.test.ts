import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../config/helpers.js';
import { modernRequest } from '../helpers/modern-request.js';
import { BRIDGE_BIN, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { FIXTURES } from '../openapi/helpers/in-process.js';
import { startUpstream, type Upstream } from '../openapi/helpers/upstream.js';

const forms = { elicitation: { form: {} } };
const confirmed = { bridge_confirm: { action: 'accept', content: { confirm: true } } };

// A 2026-07-28 confirmation is a question the bridge asks and seals into the request state: an
// answer that comes without that state, or with a state used already, must not run anything.
describe('confirmation answers on the wire (2026-07-28)', () => {
  let upstream: Upstream;
  let bridge: HttpBridge;
  beforeAll(async () => {
    upstream = await startUpstream();
    bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['openapi', join(FIXTURES, 'api-3.0.yaml'), '--base-url', upstream.url, '--confirm', 'always'],
    });
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
    await upstream?.close();
  });

  const deletes = (id: string) =>
    upstream.requests.filter((seen) => seen.method === 'DELETE' && seen.url.endsWith(`/items/${id}`));
  const call = (params: Record<string, unknown>) =>
    modernRequest(bridge.url, 'tools/call', { name: 'deleteItem', ...params }, { capabilities: forms });

  it('asks instead of running an answer given up front, however often it is sent', async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const reply = await call({ arguments: { itemId: 'upfront' }, inputResponses: confirmed });
      const result = reply.json?.result as Record<string, unknown>;
      expect(result.resultType).toBe('input_required');
      expect(Object.keys(result.inputRequests as object)).toEqual(['bridge_confirm']);
    }
    expect(deletes('upfront')).toEqual([]);
  });

  it('runs a call confirmed through its state once, and refuses the state replayed', async () => {
    const first = await call({ arguments: { itemId: 'asked' } });
    const requestState = first.json?.result?.requestState;
    expect(typeof requestState).toBe('string');
    expect(deletes('asked')).toEqual([]);

    const done = await call({ arguments: { itemId: 'asked' }, inputResponses: confirmed, requestState });
    expect(done.json?.result?.isError).toBeFalsy();
    expect(deletes('asked')).toHaveLength(1);

    const replay = await call({ arguments: { itemId: 'asked' }, inputResponses: confirmed, requestState });
    expect(replay.json?.error?.code).toBe(-32602);
    expect(replay.json?.error?.message).toContain('already used');
    expect(deletes('asked')).toHaveLength(1);
  });

  it('matches a retry that repeats arguments the checks corrected (a number sent as text)', async () => {
    const status = (params: Record<string, unknown>) =>
      modernRequest(bridge.url, 'tools/call', { name: 'getStatus', ...params }, { capabilities: forms });
    const first = await status({ arguments: { code: '418' } });
    const requestState = first.json?.result?.requestState;
    expect(typeof requestState).toBe('string');
    const done = await status({ arguments: { code: '418' }, inputResponses: confirmed, requestState });
    expect(done.json?.error).toBeUndefined();
    expect(done.json?.result?.content?.[0]?.text).toContain('418');
    expect(upstream.requests.filter((seen) => seen.url.endsWith('/status/418'))).toHaveLength(1);
  });
});

// A task tool's missing arguments are asked before the task exists; the retry that answers them
// must match the round although the checks corrected the arguments the client sent ("5" → 5).
describe('missing arguments of a task tool (2026-07-28)', () => {
  it('are answered by a retry repeating arguments the checks corrected, and the task starts', async () => {
    await using dir = await tempDir();
    await using upstream = await startUpstream();
    const config = join(dir.path, 'bridge.config.yaml');
    await writeFile(
      config,
      [
        'server:',
        '  askMissing: true',
        'sources:',
        '  - kind: openapi',
        `    options: { spec: ${JSON.stringify(join(FIXTURES, 'api-3.0.yaml'))}, baseUrl: ${JSON.stringify(upstream.url)} }`,
        '    tools:',
        '      getItem: { taskSupport: optional }',
        '',
      ].join('\n'),
    );
    await using bridge = await startHttpBridge({ script: BRIDGE_BIN, args: ['serve', config, '--no-watch'] });
    const capabilities = { ...forms, extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const getItem = (params: Record<string, unknown>) =>
      modernRequest(bridge.url, 'tools/call', { name: 'getItem', ...params }, { capabilities });
    const first = await getItem({ arguments: { ids: ['5'] } });
    const round = first.json?.result as Record<string, unknown>;
    expect(round.resultType).toBe('input_required');
    const [key] = Object.keys(round.inputRequests as object);
    const answered = await getItem({
      arguments: { ids: ['5'] },
      requestState: round.requestState,
      inputResponses: { [key as string]: { action: 'accept', content: { itemId: 'asked' } } },
    });
    expect(answered.json?.error).toBeUndefined();
    expect(answered.json?.result?.resultType).toBe('task');
    await expect
      .poll(() => upstream.requests.filter((seen) => seen.url.includes('/items/asked')).length)
      .toBe(1);
  });
});
