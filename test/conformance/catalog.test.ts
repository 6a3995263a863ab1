// The core's catalog (prompts, fixed resources, URI templates, completion) as the conformance
// fixture serves it, driven by both SDK clients over both transports.
import { describe, expect, it } from 'vitest';
import { connect, MATRIX, type TestClient } from '../helpers/connect.js';
import { distPath } from '../helpers/start-bridge.js';

const fixtureServer = { script: distPath('test/servers/conformance-server.js'), args: [] };

// The few client methods these tests use, identical in the v1 and v2 SDK clients.
interface CatalogClient {
  getServerCapabilities(): Record<string, unknown> | undefined;
  listPrompts(): Promise<{ prompts: Array<{ name: string; arguments?: unknown[] }> }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{
    messages: Array<{ role: string; content: Record<string, unknown> }>;
  }>;
  listResources(): Promise<{ resources: Array<{ uri: string; name: string }> }>;
  listResourceTemplates(): Promise<{ resourceTemplates: Array<{ uriTemplate: string }> }>;
  complete(params: unknown): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>;
}
const catalogOf = (client: TestClient) => client.raw as unknown as CatalogClient;

/** The JSON-RPC error code a rejected request carried. */
async function errorCode(promise: Promise<unknown>): Promise<number | undefined> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught as { code?: number },
  );
  expect(error, 'the request should have been refused').toBeDefined();
  return error?.code;
}

describe.each(MATRIX)('catalog with the $kind client over $wire', ({ kind, wire }) => {
  it('declares prompts and completions and lists the prompts with their arguments', async () => {
    await using client = await connect(kind, wire, fixtureServer);
    const catalog = catalogOf(client);
    expect(catalog.getServerCapabilities()).toMatchObject({ prompts: {}, completions: {}, resources: {} });
    const { prompts } = await catalog.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual([
      'test_simple_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_input_required_result_prompt',
    ]);
    expect(prompts[1]?.arguments).toEqual([
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ]);
    expect(prompts[0]).not.toHaveProperty('get');
  });

  it('renders a prompt with its arguments and refuses missing ones or unknown prompts with -32602', async () => {
    await using client = await connect(kind, wire, fixtureServer);
    const catalog = catalogOf(client);
    const rendered = await catalog.getPrompt({
      name: 'test_prompt_with_arguments',
      arguments: { arg1: 'a', arg2: 'b' },
    });
    expect(rendered.messages).toEqual([
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='a', arg2='b'" } },
    ]);
    const image = await catalog.getPrompt({ name: 'test_prompt_with_image' });
    expect(image.messages[0]?.content).toMatchObject({ type: 'image', mimeType: 'image/png' });

    expect(
      await errorCode(catalog.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a' } })),
    ).toBe(-32602);
    expect(await errorCode(catalog.getPrompt({ name: 'no_such_prompt' }))).toBe(-32602);
  });

  it('lists fixed resources before stored outputs and both templates', async () => {
    await using client = await connect(kind, wire, fixtureServer);
    const catalog = catalogOf(client);
    const { resources } = await catalog.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([
      'test://static-text',
      'test://static-binary',
      'test://watched-resource',
    ]);
    const { resourceTemplates } = await catalog.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'test://template/{id}/data',
      'bridge://output/{id}/page/{page}',
    ]);
  });

  it('reads text, binary and templated resources; an unknown URI is resource-not-found', async () => {
    await using client = await connect(kind, wire, fixtureServer);
    expect((await client.readResource('test://static-text')).contents).toEqual([
      {
        uri: 'test://static-text',
        mimeType: 'text/plain',
        text: 'This is the content of the static text resource.',
      },
    ]);
    const [binary] = (await client.readResource('test://static-binary')).contents;
    expect(binary).toMatchObject({ uri: 'test://static-binary', mimeType: 'image/png' });
    expect(Buffer.from(String(binary?.blob), 'base64').subarray(1, 4).toString()).toBe('PNG');
    const [templated] = (await client.readResource('test://template/42/data')).contents;
    expect(JSON.parse(String(templated?.text))).toEqual({
      id: '42',
      templateTest: true,
      data: 'Data for ID: 42',
    });
    // -32602 in both eras: the SDK maps -32002 to -32602 on every revision (the 2026-07-28 rule;
    // clients are told to accept either).
    expect(await errorCode(client.readResource('test://nothing-here'))).toBe(-32602);
  });

  it('completes prompt arguments and answers no suggestions where there is no callback', async () => {
    await using client = await connect(kind, wire, fixtureServer);
    const catalog = catalogOf(client);
    const completed = await catalog.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'par' },
    });
    expect(completed.completion).toEqual({ values: ['paris', 'park', 'party'], total: 3, hasMore: false });
    const none = await catalog.complete({
      ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
      argument: { name: 'id', value: '4' },
    });
    expect(none.completion.values).toEqual([]);
    const pages = await catalog.complete({
      ref: { type: 'ref/resource', uri: 'bridge://output/{id}/page/{page}' },
      argument: { name: 'id', value: '' },
    });
    expect(pages.completion.values).toEqual([]);
    expect(
      await errorCode(
        catalog.complete({
          ref: { type: 'ref/prompt', name: 'no_such_prompt' },
          argument: { name: 'x', value: '' },
        }),
      ),
    ).toBe(-32602);
  });
});
