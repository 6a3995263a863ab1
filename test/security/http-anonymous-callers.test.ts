// Class: who the caller is over HTTP. Anonymous 2026-07-28 requests are not one shared identity,
// initialize-era sessions are separate callers, and behind a trusted proxy each user is their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernRequest } from '../helpers/modern-request.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';
import { eventually, isAlive, pidDirectory } from '../tasks/helpers.js';
import { AUTH_SERVER, connectWithHeaders, pageLinks, refusedStart } from './helpers.js';

const OUTPUT = 'bridge://output/';

describe('anonymous callers on a bridge without authentication', () => {
  let bridge: HttpBridge;
  beforeAll(async () => {
    bridge = await startHttpBridge({ script: AUTH_SERVER, args: ['notes'] });
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
  });

  it('lists nothing another 2026-07-28 request created, and reaches a page only by its URI', async () => {
    await using alice = await connectWithHeaders('v2', bridge.url);
    await using mallory = await connectWithHeaders('v2', bridge.url);
    const [page] = pageLinks(await alice.callTool('long'));
    expect(page).toMatch(/^bridge:\/\/output\//);

    // Listing: neither the other anonymous client nor the creator sees stored outputs.
    expect((await mallory.listResources()).filter((uri) => uri.startsWith(OUTPUT))).toEqual([]);
    expect((await alice.listResources()).filter((uri) => uri.startsWith(OUTPUT))).toEqual([]);
    // The page itself: reachable by whoever holds its unguessable URI (the README says so).
    expect((await alice.readResource(page as string)).contents[0]?.text).toMatch(/^line /);
    // A guessed URI is not found.
    await expect(mallory.readResource(`${OUTPUT}00000000-0000-0000-0000-000000000000`)).rejects.toThrow();
    expect((await mallory.callTool('whoami')).content[0]?.text).toBe('anonymous');
  });

  it('keeps initialize-era sessions apart: each lists only its own pages', async () => {
    await using alice = await connectWithHeaders('v1', bridge.url);
    await using bob = await connectWithHeaders('v1', bridge.url);
    const [page] = pageLinks(await alice.callTool('long'));
    expect(await alice.listResources()).toContain(page);
    expect(await bob.listResources()).not.toContain(page);
    await expect(bob.readResource(page as string)).rejects.toThrow();
  });

  it('offers no task listing to an anonymous 2026-07-28 request', async () => {
    const reply = await modernRequest(
      bridge.url,
      'tasks/list',
      {},
      {
        capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      },
    );
    expect(reply.json?.error?.code).toBe(-32601);
  });
});

describe('anonymous 2026-07-28 tasks are reached only through their ids', () => {
  const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const pids = pidDirectory();
  let bridge: HttpBridge;
  beforeAll(async () => {
    bridge = await startHttpBridge({
      script: distPath('test/servers/tasks-server.js'),
      args: [],
      env: { TASKS_PID_DIR: pids.path },
    });
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
    pids[Symbol.dispose]();
  });
  const rpc = async (method: string, params: Record<string, unknown>) =>
    (await modernRequest(bridge.url, method, params, { capabilities: TASKS })).json;

  it('another request can neither list nor cancel a task without its id; its process runs on', async () => {
    const created = await rpc('tools/call', { name: 'sleep_required', arguments: { seconds: 60 } });
    const taskId = String(created?.result?.taskId);
    // 128 random bits: an id nobody else can guess.
    expect(taskId).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    const pid = await eventually(() => pids.pids().find((candidate) => isAlive(candidate)));

    expect((await rpc('tasks/list', {}))?.error?.code).toBe(-32601);
    const nearMiss = taskId.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
    for (const guess of ['1', '00000000-0000-0000-0000-000000000000', nearMiss]) {
      expect((await rpc('tasks/cancel', { taskId: guess }))?.error?.code).toBe(-32602);
    }
    // The world: the task's process is still running, the task still working.
    expect(isAlive(pid)).toBe(true);
    expect((await rpc('tasks/get', { taskId }))?.result).toMatchObject({ status: 'working' });
    // Presenting the id cancels it, and the process goes.
    expect((await rpc('tasks/cancel', { taskId }))?.result).toMatchObject({ resultType: 'complete' });
    await eventually(() => (isAlive(pid) ? undefined : true));
  });
});

describe('--trust-identity-header behind a trusted proxy', () => {
  let bridge: HttpBridge;
  beforeAll(async () => {
    bridge = await startHttpBridge({
      script: AUTH_SERVER,
      args: ['notes', '--trust-identity-header', 'X-Forwarded-User', '--trusted-proxy', '127.0.0.1'],
    });
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
  });

  it.each(['v1', 'v2'] as const)('gives each user their own caller (%s client)', async (kind) => {
    await using alice = await connectWithHeaders(kind, bridge.url, { 'x-forwarded-user': 'alice' });
    await using bob = await connectWithHeaders(kind, bridge.url, { 'x-forwarded-user': 'bob' });
    expect((await alice.callTool('whoami')).content[0]?.text).toBe('auth:alice');
    const [page] = pageLinks(await alice.callTool('long'));
    expect(await alice.listResources()).toContain(page);
    expect(await bob.listResources()).not.toContain(page);
    await expect(bob.readResource(page as string)).rejects.toThrow();
    expect((await alice.readResource(page as string)).contents[0]?.text).toMatch(/^line /);
  });

  it.each([
    ['two users in one header (a proxy that appends)', 'alice, bob', 400],
    ['an empty user', ' ', 400],
    ['a user name of 300 characters', 'a'.repeat(300), 400],
  ])('refuses %s', async (_label, value, status) => {
    const reply = await modernRequest(
      bridge.url,
      'tools/call',
      { name: 'whoami', arguments: {} },
      {
        headers: { 'x-forwarded-user': value },
      },
    );
    expect(reply.status).toBe(status);
    expect(reply.json?.error?.message).toMatch(/X-Forwarded-User/);
    // The server keeps serving.
    const next = await modernRequest(
      bridge.url,
      'tools/call',
      { name: 'whoami', arguments: {} },
      {
        headers: { 'x-forwarded-user': 'carol' },
      },
    );
    expect(next.json?.result?.content?.[0]?.text).toBe('auth:carol');
  });
});

describe('a request that bypasses the trusted proxy', () => {
  let bridge: HttpBridge;
  beforeAll(async () => {
    // The only trusted proxy is elsewhere: this test's requests come from 127.0.0.1.
    bridge = await startHttpBridge({
      script: AUTH_SERVER,
      args: ['notes', '--trust-identity-header', 'X-Forwarded-User', '--trusted-proxy', '10.9.9.0/24'],
    });
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
  });

  it.each([
    ['posing as a user', { 'x-forwarded-user': 'alice' }],
    ['without the header (would be anonymous)', {}],
  ])('is refused with 403 %s', async (_label, headers) => {
    const reply = await modernRequest(
      bridge.url,
      'tools/call',
      { name: 'whoami', arguments: {} },
      { headers },
    );
    expect(reply.status).toBe(403);
    expect(reply.json?.error?.message).toMatch(/not a trusted proxy/);
    expect(reply.json?.result).toBeUndefined();
  });

  it('logs the refusal at warning', async () => {
    await modernRequest(bridge.url, 'tools/list', {}, { headers: { 'x-forwarded-user': 'x' } });
    expect(bridge.stderr()).toMatch(/warning: http: refused \(identity header\)/);
  });
});

describe('identity-header settings that would not be safe are refused at start', () => {
  it.each([
    [
      'a header without trusted proxies',
      ['--trust-identity-header', 'X-Forwarded-User'],
      /needs --trusted-proxy/,
    ],
    [
      'trusted proxies without a header',
      ['--trusted-proxy', '127.0.0.1'],
      /only with --trust-identity-header/,
    ],
    [
      'the Authorization header',
      ['--trust-identity-header', 'Authorization', '--trusted-proxy', '127.0.0.1'],
      /expects a header name/,
    ],
    [
      'a network with a bad prefix',
      ['--trust-identity-header', 'X-User', '--trusted-proxy', '10.0.0.0/40'],
      /--trusted-proxy expects an IP address or a network/,
    ],
    [
      'a host name as proxy',
      ['--trust-identity-header', 'X-User', '--trusted-proxy', 'proxy.internal'],
      /--trusted-proxy expects/,
    ],
    [
      'bearer tokens as well',
      ['--trust-identity-header', 'X-User', '--trusted-proxy', '127.0.0.1', '--auth-tokens-env', 'T'],
      /applies to --auth none/,
    ],
  ])('%s', async (_label, args, message) => {
    const { code, stderr } = await refusedStart(args, { T: 'a-long-enough-token-0123456789' });
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});
