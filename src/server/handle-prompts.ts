import {
  type CompleteResult,
  type GetPromptResult,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
} from '@modelcontextprotocol/server';
import { type AskSettings, prepareAsking } from '../ask/call-asking.js';
import type { PromptDefinition, ResourceTemplateDefinition } from '../catalog.js';
import { PAGE_URI_TEMPLATE } from '../page-output.js';
import { quote } from '../quote-input.js';
import { catalogContext } from './handle-resources.js';
import { listPage, prefixVersions } from './paginate.js';

/** The spec caps one completion answer at 100 values. */
const MAX_COMPLETIONS = 100;

/**
 * Prepares `prompts/list` and `prompts/get` once; the returned function registers them and
 * declares the `prompts` capability on a new server, before it connects (capabilities are fixed then).
 * Unknown prompts and missing required arguments are the client's error: -32602.
 */
export function promptHandlers(
  prompts: PromptDefinition[],
  shutdown: AbortSignal,
  ask?: AskSettings,
): (server: Server, modern: boolean) => void {
  const byName = new Map(prompts.map((prompt) => [prompt.name, prompt]));
  const listed: Prompt[] = prompts.map(({ get: _get, complete: _complete, ...prompt }) => prompt);
  const listedVersion = prefixVersions(() => listed.map((prompt) => prompt.name));
  return (server, modern) => {
    server.registerCapabilities({ prompts: {} });

    server.setRequestHandler('prompts/list', (request) => {
      return listPage('prompts', listed, request.params?.cursor, listedVersion);
    });

    server.setRequestHandler('prompts/get', async (request, ctx): Promise<GetPromptResult> => {
      const { name } = request.params;
      const prompt = byName.get(name);
      if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${quote(name)}`);
      const args = request.params.arguments ?? {};
      // Own members only: a required argument named `constructor` is not given by Object.prototype.
      const missing = (prompt.arguments ?? []).filter(
        (arg) => arg.required && (!Object.hasOwn(args, arg.name) || args[arg.name] === undefined),
      );
      if (missing.length > 0) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Prompt "${name}" needs the argument(s): ${missing.map((arg) => arg.name).join(', ')}`,
        );
      }
      const context = catalogContext(ctx, shutdown);
      if (!ask) return await prompt.get(args, context);
      const asking = prepareAsking(ctx, {
        modern,
        capabilities: server.getClientCapabilities(),
        settings: ask,
        caller: context.caller,
        tool: `prompt:${name}`,
        args,
        legacyInterrupt: 'error',
      });
      if (asking.ready) await asking.ready;
      context.ask = asking.ask(context.signal);
      let result: GetPromptResult;
      try {
        result = await prompt.get(args, context);
      } catch (error) {
        const answer = asking.settle({ error });
        if (answer) return answer as unknown as GetPromptResult;
        throw error;
      }
      return (asking.settle({ result }) as unknown as GetPromptResult | undefined) ?? result;
    });
  };
}

/**
 * Registers `completion/complete` for prompt arguments and resource-template variables, and
 * declares the `completions` capability. Anything without a `complete` callback gets no
 * suggestions; an unknown prompt or template is -32602.
 */
export function registerCompletionHandler(
  server: Server,
  catalog: {
    prompts: PromptDefinition[];
    resourceTemplates: ResourceTemplateDefinition[];
    shutdown: AbortSignal;
  },
): void {
  server.registerCapabilities({ completions: {} });
  server.setRequestHandler('completion/complete', async (request, ctx): Promise<CompleteResult> => {
    const { ref, argument } = request.params;
    const context = catalogContext(ctx, catalog.shutdown);
    let values: string[] = [];
    if (ref.type === 'ref/prompt') {
      const prompt = catalog.prompts.find((candidate) => candidate.name === ref.name);
      if (!prompt)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${quote(ref.name)}`);
      values = (await prompt.complete?.(argument.name, argument.value, context)) ?? [];
    } else {
      const template = catalog.resourceTemplates.find((candidate) => candidate.uriTemplate === ref.uri);
      // The output-page template is always listed; its ids are unguessable, so nothing to suggest.
      if (!template && ref.uri !== PAGE_URI_TEMPLATE) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown resource template: ${quote(ref.uri)}`,
        );
      }
      values = (await template?.complete?.(argument.name, argument.value, context)) ?? [];
    }
    return {
      completion: {
        values: values.slice(0, MAX_COMPLETIONS),
        total: values.length,
        hasMore: values.length > MAX_COMPLETIONS,
      },
    };
  });
}
