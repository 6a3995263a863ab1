import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ClientOffer, connect, MATRIX } from '../helpers/connect.js';
import { distPath } from '../helpers/start-bridge.js';

const askServer = { script: distPath('test/servers/ask-server.js'), args: [] };
const everything = { elicitation: { form: {} }, sampling: {}, roots: {} };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-ask-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An answerer that records what it was asked and answers from `answers` by method (and form field). */
function answering(answers: {
  form?: (params: Record<string, unknown>) => Record<string, unknown>;
  sampling?: Record<string, unknown>;
  roots?: Array<{ uri: string; name?: string }>;
}): ClientOffer & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    capabilities: everything,
    async answer(method, params) {
      asked.push(method === 'elicitation/create' ? String(params.message) : method);
      if (method === 'elicitation/create') return answers.form?.(params) ?? { action: 'cancel' };
      if (method === 'sampling/createMessage') return answers.sampling ?? {};
      return { roots: answers.roots ?? [] };
    },
  };
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []);

/** The error a call failed with: a thrown JSON-RPC error (2026-07-28) or an isError result (initialize era). */
async function failure(call: Promise<{ isError?: boolean; content: Array<Record<string, unknown>> }>) {
  try {
    const result = await call;
    expect(result.isError).toBe(true);
    return { code: undefined, text: String(result.content[0]?.text) };
  } catch (error) {
    return { code: (error as { code?: number }).code, text: (error as Error).message };
  }
}

describe.each(MATRIX)('asking the client, $kind client over $wire', ({ kind, wire }) => {
  it('asks for a form, gets the answer, and acts once', async () => {
    const offer = answering({ form: () => ({ action: 'accept', content: { name: 'Ada' } }) });
    await using client = await connect(kind, wire, askServer, offer);
    const marker = join(dir, 'greet');
    const result = await client.callTool('greet', { marker });
    expect(result.content[0]?.text).toBe('Hello, Ada!');
    expect(offer.asked).toEqual(['Who shall I greet?']);
    expect(lines(marker)).toEqual(['hello Ada']);
  });

  it('runs the tool once across two rounds of questions', async () => {
    const offer = answering({
      form: (params) =>
        String(params.message).includes('name')
          ? { action: 'accept', content: { name: 'Grace' } }
          : { action: 'accept', content: { color: 'blue' } },
    });
    await using client = await connect(kind, wire, askServer, offer);
    const marker = join(dir, 'two');
    const result = await client.callTool('two_steps', { marker });
    expect(result.content[0]?.text).toBe('Grace likes blue');
    expect(offer.asked).toEqual(['Your name?', 'Your favourite color?']);
    expect(lines(marker)).toEqual(['Grace likes blue']);
  });

  it('asks a form, a completion and the roots together', async () => {
    const offer = answering({
      form: () => ({ action: 'accept', content: { name: 'Lin' } }),
      sampling: { role: 'assistant', content: { type: 'text', text: 'hi!' }, model: 'test-model' },
      roots: [{ uri: 'file:///tmp/work', name: 'work' }],
    });
    await using client = await connect(kind, wire, askServer, offer);
    const result = await client.callTool('all_at_once', {});
    expect(result.content[0]?.text).toBe('Lin / hi! / file:///tmp/work');
  });

  it("reads the client's roots for path-confined tools", async () => {
    const offer = answering({ roots: [{ uri: 'file:///srv/project', name: 'project' }] });
    await using client = await connect(kind, wire, askServer, offer);
    const result = await client.callTool('client_roots', {});
    expect(result.content[0]?.text, client.stderr()).toBe('/srv/project');
  });

  it('does nothing when the user declines', async () => {
    const offer = answering({ form: () => ({ action: 'decline' }) });
    await using client = await connect(kind, wire, askServer, offer);
    const marker = join(dir, 'declined');
    const result = await client.callTool('greet', { marker });
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toBe('The user chose to decline.');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses an answer that does not match the requested schema, runs nothing, keeps serving', async () => {
    let first = true;
    const offer = answering({
      form: () => {
        const content = first ? { name: 42 } : { name: 'Ada' };
        first = false;
        return { action: 'accept', content };
      },
    });
    await using client = await connect(kind, wire, askServer, offer);
    const marker = join(dir, 'bad');
    const bad = await failure(client.callTool('greet', { marker }));
    // The v2 client checks nothing itself; the SDK v1 client checks nothing either: the bridge refuses.
    expect(bad.text).toContain('Invalid answer to the elicitation request "who"');
    expect(bad.text).toContain('/name must be a string');
    if (kind === 'v2') expect(bad.code).toBe(-32602);
    expect(existsSync(marker)).toBe(false);
    const good = await client.callTool('greet', { marker });
    expect(good.content[0]?.text).toBe('Hello, Ada!');
  });

  it('refuses to ask a client without the capability, and says why', async () => {
    await using client = await connect(kind, wire, askServer, { capabilities: {} });
    const marker = join(dir, 'nocap');
    const refused = await failure(client.callTool('greet', { marker }));
    expect(refused.text).toContain('did not declare the elicitation (form mode) capability');
    if (kind === 'v2') expect(refused.code).toBe(-32021);
    expect(existsSync(marker)).toBe(false);
    // Roots are optional for path-confined tools: without the capability, there are none.
    const roots = await client.callTool('client_roots', {});
    expect(roots.content[0]?.text).toBe('no roots');
  });
});

describe.each(MATRIX)('a prompt asking the client, $kind client over $wire', ({ kind, wire }) => {
  it('renders with the answer', async () => {
    const fixture = { script: distPath('test/servers/conformance-server.js'), args: [] };
    const offer = answering({ form: () => ({ action: 'accept', content: { context: 'tests' } }) });
    await using client = await connect(kind, wire, fixture, offer);
    const raw = client.raw as unknown as { getPrompt(params: unknown): Promise<{ messages: unknown[] }> };
    const prompt = await raw.getPrompt({ name: 'test_input_required_result_prompt', arguments: {} });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Prompt with context: tests' } },
    ]);
    expect(offer.asked).toEqual(['What context should the prompt use?']);
  });
});

describe.each(MATRIX)('asking for missing arguments, $kind client over $wire', ({ kind, wire }) => {
  it('asks the user for the required arguments the model left out, then runs once', async () => {
    const offer = answering({
      form: () => ({ action: 'accept', content: { title: 'buy milk', priority: 2 } }),
    });
    await using client = await connect(kind, wire, askServer, offer);
    const marker = join(dir, 'note');
    const result = await client.callTool('make_note', { marker });
    expect(result.content[0]?.text).toBe('noted buy milk');
    expect(offer.asked).toEqual([
      'The tool "make_note" needs title, priority, which the request left out. Please provide them.',
    ]);
    expect(lines(marker)).toEqual(['buy milk (2)']);
  });

  it('runs nothing when the user declines, and reports bad answers as argument errors', async () => {
    let first = true;
    const offer = answering({
      form: () => {
        const answer = first
          ? { action: 'decline' }
          : { action: 'accept', content: { title: 'x', priority: 2 } };
        first = false;
        return answer;
      },
    });
    await using client = await connect(kind, wire, askServer, offer);
    const marker = join(dir, 'declined-note');
    const declined = await client.callTool('make_note', { marker });
    expect(declined.isError).toBe(true);
    expect(declined.content[0]?.text).toBe(
      'The user declined to provide title, priority for make_note; nothing was run.',
    );
    // A wrong type besides the missing argument: reported as usual, nobody is asked.
    const wrong = await client.callTool('make_note', { marker, title: 'x', priority: 'high' });
    expect(wrong.content[0]?.text).toContain('/priority');
    expect(offer.asked).toHaveLength(1);
    expect(existsSync(marker)).toBe(false);
  });
});

describe.each(MATRIX)('URL elicitation, $kind client over $wire', ({ kind, wire }) => {
  it('sends the URL, and in the initialize era tells the client when the interaction is complete', async () => {
    const urls: Array<Record<string, unknown>> = [];
    await using client = await connect(kind, wire, askServer, {
      capabilities: { elicitation: { form: {}, url: {} } },
      async answer(_method, params) {
        urls.push(params);
        return { action: 'accept' };
      },
    });
    const completed: unknown[] = [];
    if (kind === 'v1') {
      const { ElicitationCompleteNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
      (client.raw as import('@modelcontextprotocol/sdk/client/index.js').Client).setNotificationHandler(
        ElicitationCompleteNotificationSchema,
        (notification) => void completed.push(notification.params),
      );
    }
    const result = await client.callTool('sign_in', {});
    expect(urls).toEqual([
      expect.objectContaining({
        mode: 'url',
        message: 'Sign in to the example service',
        url: 'https://example.com/login?state=abc',
      }),
    ]);
    if (kind === 'v1') {
      const id = String(urls[0]?.elicitationId);
      expect(result.content[0]?.text).toBe(`signed in (${id})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(completed).toEqual([{ elicitationId: id }]);
    } else {
      // 2026-07-28 URL elicitation carries no elicitationId.
      expect(urls[0]).not.toHaveProperty('elicitationId');
      expect(result.content[0]?.text).toBe('signed in');
    }
  });
});
