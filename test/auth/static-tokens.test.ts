import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { connectWithToken, type TokenClient } from './token-clients.js';

const script = distPath('test/servers/auth-server.js');
const ALICE = 'alice-0123456789abcdef';
const BOB = 'bob-0123456789abcdef';
const ROOT = 'root-0123456789abcdef';
const CI = 'ci-0123456789abcdef';

let dir: string;
let bridge: HttpBridge;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-auth-'));
  const file = join(dir, 'tokens.txt');
  writeFileSync(
    file,
    [
      '# token  subject  scopes',
      `${ALICE} alice read,write`,
      `${BOB}   bob   read`,
      `${ROOT}  root  *`,
      '',
    ].join('\n'),
  );
  bridge = await startHttpBridge({
    script,
    args: [
      'notes',
      '--auth-tokens-file',
      file,
      '--auth-tokens-env',
      'CI_TOKENS',
      '--tool-scope',
      'whoami=admin',
    ],
    env: { CI_TOKENS: `${CI} ci-bot read` },
  });
});

afterAll(async () => {
  await bridge?.[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
});

function post(body: unknown, token?: string, headers: Record<string, string> = {}) {
  return fetch(bridge.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('static bearer tokens (--auth-tokens-file, --auth-tokens-env)', () => {
  it('refuses an unknown token with 401 invalid_token', async () => {
    const response = await post(initialize, 'nope-0123456789abcdef');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await response.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('binds calls to the subject of the token and checks its scopes', async () => {
    await using alice = await connectWithToken('v1', bridge.url, ALICE);
    expect((await alice.callTool('write_note', { key: 'a', text: 'x' })).content[0]?.text).toBe('stored a');
    // whoami needs "admin" (--tool-scope), which alice lacks.
    await expect(alice.callTool('whoami')).rejects.toThrow(/403|insufficient_scope/);

    await using bob = await connectWithToken('v2', bridge.url, BOB);
    expect((await bob.callTool('echo', { text: 'b' })).content[0]?.text).toBe('b');
    await expect(bob.callTool('write_note', { key: 'b', text: 'x' })).rejects.toThrow(/write/);

    // A token listed without scopes ("*") holds every scope, the per-tool ones included.
    await using root = await connectWithToken('v2', bridge.url, ROOT);
    expect((await root.callTool('whoami')).content[0]?.text).toBe('auth:root');

    await using ci = await connectWithToken('v1', bridge.url, CI);
    expect((await ci.callTool('echo', { text: 'c' })).content[0]?.text).toBe('c');
  });

  it('names the per-tool scope in the challenge and in the metadata', async () => {
    const response = await post(
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      BOB,
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('scope="admin"');
    const metadata = await (
      await fetch(new URL('/.well-known/oauth-protected-resource/mcp', bridge.url))
    ).json();
    expect(metadata).toEqual({
      resource: bridge.url.href,
      scopes_supported: ['read', 'write', 'admin'],
      bearer_methods_supported: ['header'],
    });
  });

  it('keeps an initialize-era session to the subject that opened it', async () => {
    const opened = await post(initialize, ALICE);
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id') ?? '';
    expect(session).not.toBe('');
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    expect((await post(initialized, ALICE, headers)).status).toBe(202);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const hijack = await post(list, BOB, headers);
    expect(hijack.status).toBe(404);
    expect((await post(list, ALICE, headers)).status).toBe(200);
  });

  it('keeps the resources a tool made to the subject that called it', async () => {
    await using alice = await connectWithToken('v2', bridge.url, ALICE);
    const result = await alice.callTool('long');
    const link = result.content.find((block) => block.type === 'resource_link') as
      | { uri: string }
      | undefined;
    expect(link?.uri).toBeTruthy();
    const uri = link?.uri ?? '';
    expect((await alice.readResource(uri)).contents[0]?.text).toContain('line');
    // Another session of the same subject sees it; another subject does not.
    await using aliceAgain = await connectWithToken('v1', bridge.url, ALICE);
    expect((await aliceAgain.readResource(uri)).contents[0]?.text).toContain('line');
    await using bob = await connectWithToken('v1', bridge.url, BOB);
    await expect(bob.readResource(uri)).rejects.toThrow();
  });

  it('keeps tasks to the subject that created them, across its sessions', async () => {
    await using alice = await connectWithToken('v1', bridge.url, ALICE);
    const tasksOf = (client: TokenClient) => (client.raw as ClientV1).experimental.tasks;
    let taskId = '';
    for await (const message of tasksOf(alice).callToolStream(
      { name: 'echo', arguments: { text: 'as a task' } },
      undefined,
      { task: { ttl: 60_000 } },
    )) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
    }
    expect(taskId).not.toBe('');
    await using aliceAgain = await connectWithToken('v1', bridge.url, ALICE);
    expect(await tasksOf(aliceAgain).getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
    await using bob = await connectWithToken('v1', bridge.url, BOB);
    await expect(tasksOf(bob).getTask(taskId)).rejects.toMatchObject({ code: -32602 });
    expect((await tasksOf(bob).listTasks()).tasks).toEqual([]);
    expect((await tasksOf(aliceAgain).listTasks()).tasks.map((task) => task.taskId)).toContain(taskId);
  });

  it('never writes a token to the log', () => {
    for (const token of [ALICE, BOB, ROOT, CI]) expect(bridge.stderr()).not.toContain(token);
  });
});
