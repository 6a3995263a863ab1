// The `bridge` command with one more source kind, `fixture`, for the config tests: its tools are
// listed in a YAML file the tests rewrite to drive hot reload (every tool answers with a fixed
// text, after an optional delay so that a call can be in flight across a reload).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'yaml';
import { z } from 'zod';
import type { AdapterCommand } from '../../src/command.js';
import { BridgeError, type Source, type ToolDefinition } from '../../src/index.js';
import { runCli } from '../../src/run-cli.js';

const toolSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string(),
  reply: z.string().optional(),
  delayMs: z.number().optional(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  readOnly: z.boolean().optional(),
});

interface FixtureOptions {
  /** A YAML file: a list of tools. */
  file: string;
}

const fixtureCommand: AdapterCommand<FixtureOptions> = {
  name: 'fixture',
  summary: 'tools listed in a YAML file (tests only)',
  usage: 'bridge fixture <tools.yaml>',
  options: {},
  parseFlags: (positionals) => ({ file: positionals[0] ?? '' }),
  configSchema: z.object({ file: z.string().min(1) }).strict(),
  createSource(options, baseDir): Source {
    const file = resolve(baseDir, options.file);
    return {
      label: `fixture ${options.file}`,
      async load() {
        const parsed = z.array(toolSchema).safeParse(parse(await readFile(file, 'utf8')));
        if (!parsed.success) throw new BridgeError('load_failed', `${file}: ${parsed.error.message}`);
        return parsed.data.map(
          (tool): ToolDefinition => ({
            name: tool.name,
            ...(tool.title ? { title: tool.title } : {}),
            description: tool.description,
            inputSchema: tool.inputSchema ?? { type: 'object', properties: {} },
            annotations: {
              readOnlyHint: tool.readOnly ?? true,
              destructiveHint: !(tool.readOnly ?? true),
              idempotentHint: true,
              openWorldHint: false,
            },
            async invoke(_args, context) {
              if (tool.delayMs) await sleep(tool.delayMs, undefined, { signal: context.signal });
              return { content: [{ type: 'text', text: tool.reply ?? tool.name }] };
            },
          }),
        );
      },
      watchedFiles: () => [file],
    };
  },
};

const adapters: Record<string, () => Promise<AdapterCommand>> = {
  openapi: () => import('../../adapters/openapi/index.js').then((m) => m.openapiCommand as AdapterCommand),
  graphql: () => import('../../adapters/graphql/index.js').then((m) => m.graphqlCommand as AdapterCommand),
  cli: () => import('../../adapters/cli/index.js').then((m) => m.cliCommand as AdapterCommand),
  fixture: async () => fixtureCommand as AdapterCommand,
};

process.exitCode = await runCli(process.argv.slice(2), adapters);
