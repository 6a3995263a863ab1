import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../helpers/connect.js';
import { modernRequest } from '../helpers/modern-request.js';
import { distPath, type HttpBridge, startHttpBridge } from '../helpers/start-bridge.js';

const askServer = { script: distPath('test/servers/ask-server.js'), args: [] };
const forms = { elicitation: { form: {} } };

// Raw 2026-07-28 rounds, where a client can send anything back: the bridge must refuse all of it
// without running the tool, and keep serving.
describe('input_required rounds on the wire (2026-07-28)', () => {
  let bridge: HttpBridge;
  let dir: string;
  beforeAll(async () => {
    bridge = await startHttpBridge(askServer);
    dir = mkdtempSync(join(tmpdir(), 'bridge-rounds-'));
  });
  afterAll(async () => {
    await bridge?.[Symbol.asyncDispose]();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (params: Record<string, unknown>, capabilities: object = forms) =>
    modernRequest(bridge.url, 'tools/call', { name: 'greet', ...params }, { capabilities });

  async function firstRound(marker: string) {
    const reply = await call({ arguments: { marker } });
    const result = reply.json?.result as Record<string, unknown>;
    expect(result.resultType).toBe('input_required');
    expect(result.inputRequests).toEqual({
      who: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Who shall I greet?',
          requestedSchema: expect.objectContaining({ required: ['name'] }),
        },
      },
    });
    expect(typeof result.requestState).toBe('string');
    return String(result.requestState);
  }

  const accepted = (name: unknown) => ({ who: { action: 'accept', content: { name } } });

  it('completes on the retry carrying the answer and the state, once', async () => {
    const marker = join(dir, 'once');
    const requestState = await firstRound(marker);
    const done = await call({ arguments: { marker }, inputResponses: accepted('Ada'), requestState });
    expect(done.json?.result?.content?.[0]?.text).toBe('Hello, Ada!');
    expect(readFileSync(marker, 'utf8')).toBe('hello Ada\n');

    // The same state again: refused, and the tool did not run a second time.
    const replay = await call({ arguments: { marker }, inputResponses: accepted('Ada'), requestState });
    expect(replay.json?.error?.code).toBe(-32602);
    expect(replay.json?.error?.message).toContain('already used');
    expect(readFileSync(marker, 'utf8')).toBe('hello Ada\n');
  });

  it('refuses a tampered state', async () => {
    const marker = join(dir, 'tampered');
    const requestState = await firstRound(marker);
    const [prefix, body, mac] = requestState.split('.');
    const decoded = JSON.parse(Buffer.from(String(body), 'base64url').toString());
    decoded.answers = { who: { d: 'x', r: { action: 'accept', content: { name: 'Mallory' } } } };
    const forged = `${prefix}.${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
    const reply = await call({
      arguments: { marker },
      inputResponses: accepted('Eve'),
      requestState: forged,
    });
    expect(reply.json?.error?.code).toBe(-32602);
    expect(reply.json?.error?.message).toContain('signature does not match');
    const garbage = await call({ arguments: { marker }, requestState: 'not-a-state' });
    expect(garbage.json?.error?.message).toContain('not a request state this server issued');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a state presented with other arguments', async () => {
    const marker = join(dir, 'moved');
    const requestState = await firstRound(marker);
    const other = join(dir, 'elsewhere');
    const reply = await call({ arguments: { marker: other }, inputResponses: accepted('Ada'), requestState });
    expect(reply.json?.error?.message).toContain('belongs to another call');
    expect(existsSync(other)).toBe(false);
  });

  it('ignores unknown inputResponses keys and asks again for what is missing', async () => {
    const marker = join(dir, 'unknown');
    const requestState = await firstRound(marker);
    const reply = await call({
      arguments: { marker },
      inputResponses: { someone_else: { action: 'accept', content: { name: 'Eve' } } },
      requestState,
    });
    const result = reply.json?.result as Record<string, unknown>;
    expect(result.resultType).toBe('input_required');
    expect(Object.keys(result.inputRequests as object)).toEqual(['who']);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses an answer that does not match the form, naming the field', async () => {
    const marker = join(dir, 'mismatch');
    const requestState = await firstRound(marker);
    const reply = await call({ arguments: { marker }, inputResponses: accepted(''), requestState });
    expect(reply.json?.error?.code).toBe(-32602);
    expect(reply.json?.error?.message).toContain('/name must have at least 1 character');
    expect(existsSync(marker)).toBe(false);
  });

  it('answers -32021 when the envelope lacks the capability, and keeps serving', async () => {
    const marker = join(dir, 'nocap');
    const reply = await call({ arguments: { marker } }, { sampling: {} });
    expect(reply.json?.error?.code).toBe(-32021);
    expect(reply.json?.error?.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
    expect(existsSync(marker)).toBe(false);
    await firstRound(marker);
  });
});

describe('server→client questions in the initialize era', () => {
  it('gives up on a question the client leaves unanswered, and keeps serving', async () => {
    const slow = { ...askServer, env: { ASK_TIMEOUT_MS: '300' } };
    let calls = 0;
    await using client = await connect('v1', 'stdio', slow, {
      capabilities: forms,
      answer: () => {
        calls++;
        return calls === 1
          ? new Promise(() => {})
          : Promise.resolve({ action: 'accept', content: { name: 'Bo' } });
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'bridge-timeout-'));
    try {
      const marker = join(dir, 'm');
      const result = await client.callTool('greet', { marker });
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toContain('did not answer the elicitation/create request within');
      expect(existsSync(marker)).toBe(false);
      const again = await client.callTool('greet', { marker });
      expect(again.content[0]?.text).toBe('Hello, Bo!');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cancels the question when the client cancels the call', async () => {
    let questionAborted: Promise<void> | undefined;
    let asked = 0;
    await using client = await connect('v1', 'stdio', askServer, {
      capabilities: forms,
      // Answers the first question; never the second, whose signal aborts on the server's
      // notifications/cancelled. (The v1 client ignores a cancellation of request id 0, so the
      // question to cancel must not be the server's first request.)
      answer: (_method, _params, signal) => {
        if (++asked === 1) return Promise.resolve({ action: 'accept', content: { name: 'Al' } });
        questionAborted = new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
        return new Promise(() => {});
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'bridge-cancel-'));
    try {
      const marker = join(dir, 'm');
      expect((await client.callTool('greet', { marker })).content[0]?.text).toBe('Hello, Al!');
      const controller = new AbortController();
      const pending = client.callTool('greet', { marker }, { signal: controller.signal });
      pending.catch(() => {});
      for (let waited = 0; !questionAborted && waited < 5000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(questionAborted, 'the server never asked').toBeDefined();
      controller.abort();
      await expect(pending).rejects.toThrow();
      await questionAborted;
      expect(readFileSync(marker, 'utf8')).toBe('hello Al\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
