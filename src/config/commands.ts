import { dirname } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CONFIRM_FALLBACKS, CONFIRM_MODES } from '../ask/confirm-call.js';
import { authFlagsFromConfig } from '../auth/auth-config.js';
import type { AdapterCommand, FlagValues } from '../command.js';
import { BridgeError, describeError } from '../errors.js';
import { escapeControl, escapeParagraph, jsonForTerminal } from '../escape-control.js';
import { createStderrLogger } from '../logger.js';
import { buildSources, shorthandConfig } from './build-sources.js';
import { configJsonSchema, instanceNameSchema } from './config-schema.js';
import { type AdapterLoaders, type BridgeConfig, loadConfigFile } from './load-config.js';
import { serveConfig, transportFromSettings } from './serve-config.js';
import { parseLogLevel, SERVER_OPTIONS, SERVER_USAGE, serverFrom } from './server-flags.js';

export const SERVE_USAGE = `Usage: bridge serve <config.yaml|config.json> [flags]

Serves every source the config file lists (OpenAPI, GraphQL and CLI sources, each with its own
namespace, filters and per-tool overrides) as one MCP server. The tools are rebuilt, and clients
told, when the config or a file a source is built from changes; a broken edit keeps the previous
tools and logs why. Command-line server flags win over the config's "server" section.`;

export const INSPECT_USAGE = `Usage: bridge inspect <config.yaml|config.json> [--json]
       bridge inspect <openapi|graphql|cli> <arguments> [adapter flags] [--json]

Prints the tools a client would see, without starting a server: name, title, the four
annotations, task support and estimated tokens per tool and in total. Exits 1 when a tool is
invalid (a bad name, a schema that does not compile as JSON Schema 2020-12).
  --json                   print JSON instead of a table`;

export const CONFIG_USAGE = `Usage: bridge config schema

Prints the JSON Schema (2020-12) of the config file, for editors: reference it with
"$schema" in a JSON config, or "# yaml-language-server: $schema=bridge.config.schema.json" in YAML.`;

/** `bridge serve <config>`. Returns the exit code. */
export async function serveCommand(args: string[], adapters: AdapterLoaders) {
  const parsed = parse('serve', args, SERVER_OPTIONS, SERVE_USAGE, SERVER_USAGE);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) {
    return usageError('serve', 'expects exactly one config file', `${SERVE_USAGE}\n\n${SERVER_USAGE}`);
  }
  return report('serve', async () => {
    const config = await loadConfigFile(file, adapters);
    return runConfig(config, values, () => loadConfigFile(file, adapters));
  });
}

/** Serves a config until the client or a signal stops it: the one path of `serve` and the shorthands. */
export async function runConfig(
  config: BridgeConfig,
  values: FlagValues,
  reread?: () => Promise<BridgeConfig>,
): Promise<number> {
  const withFlags = confirmFlags(values);
  withFlags(config);
  const level = values['log-level'] ?? config.server.logLevel;
  const log = createStderrLogger(parseLogLevel(level));
  // The config's `server.auth` reads as flags, so one function checks both; given flags win.
  const baseDir = config.file ? dirname(config.file) : process.cwd();
  const flags = authFlagsFromConfig(config.server.auth, values, baseDir);
  const server = serverFrom(flags, log, transportFromSettings(config.server));
  const instance = values.instance ?? config.server.instance;
  if (typeof instance === 'string' && server.transport.kind === 'http') {
    if (!instanceNameSchema.safeParse(instance).success) {
      throw new BridgeError('invalid_input', `--instance expects 1-32 of A-Z a-z 0-9 _ -, got "${instance}"`);
    }
    server.transport = { ...server.transport, instance };
  }
  const store = values.store ?? config.server.store;
  // Signals are taken from the start: one that arrives while the sources load gives up what the
  // load waits for (a fetch, a FIFO's writer, a CLI's discovery) and ends the process, within 2 s
  // whatever the load is doing; one between the "listening" line and the bridge being handed back
  // stops it cleanly once it serves (its caches written, its processes stopped).
  let running: Awaited<ReturnType<typeof serveConfig>> | undefined;
  const starting = new AbortController();
  const stop = () => {
    if (running) {
      void running.close();
      return;
    }
    starting.abort(new Error('stopped by a signal while starting'));
    setTimeout(() => process.exit(0), 2_000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    running = await serveConfig({
      config,
      ...(typeof store === 'string' ? { store } : {}),
      ...(reread ? { reread: () => reread().then(withFlags) } : {}),
      transport: server.transport,
      log,
      watch: values['no-watch'] !== true,
      signal: starting.signal,
    });
  } catch (error) {
    // Stopped while starting: not an error of the start.
    if (starting.signal.aborted) return 0;
    throw error;
  }
  server.attach(running.bridge);
  if (starting.signal.aborted) void running.close();
  const serving = running;
  const hangup = () => void serving.reload();
  process.on('SIGHUP', hangup);
  await running.closed;
  process.off('SIGHUP', hangup);
  // Anything still holding the event loop (a stuck socket) must not keep the process alive.
  setTimeout(() => process.exit(0), 2_000).unref();
  return 0;
}

/** `bridge inspect <config | kind args>`. Returns the exit code. */
export async function inspectCommand(args: string[], adapters: AdapterLoaders) {
  const [first] = args;
  const load = first === undefined ? undefined : adapters[first];
  const command = load ? await load() : undefined;
  const options = {
    json: { type: 'boolean' as const },
    'log-level': SERVER_OPTIONS['log-level'],
    ...command?.options,
  };
  const usage = command ? `${INSPECT_USAGE}\n\n${command.usage}` : INSPECT_USAGE;
  const parsed = parse('inspect', command ? args.slice(1) : args, options, usage, '');
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (!command && positionals.length !== 1) {
    return usageError('inspect', 'expects a config file, or a source kind and its arguments', usage);
  }
  return report('inspect', async () => {
    const log = createStderrLogger(parseLogLevel(values['log-level'] ?? 'warning'));
    const config = command
      ? shorthandConfig(command, command.parseFlags(positionals, values), process.cwd())
      : await loadConfigFile(positionals[0]!, adapters);
    // Loaded here: inspecting compiles every schema with Ajv, which serving does not need up front.
    const { formatInspectTable, inspectSources } = await import('./inspect-tools.js');
    const result = await inspectSources(buildSources(config), log);
    process.stdout.write(values.json ? `${jsonForTerminal(result)}\n` : formatInspectTable(result));
    return result.valid ? 0 : 1;
  });
}

/** `bridge config schema`. Returns the exit code. */
export async function configCommand(args: string[], adapters: AdapterLoaders) {
  if (args[0] === '--help' || args[0] === '-h') {
    process.stdout.write(`${CONFIG_USAGE}\n`);
    return 0;
  }
  if (args.length !== 1 || args[0] !== 'schema')
    return usageError('config', 'expects "schema"', CONFIG_USAGE);
  const commands: AdapterCommand[] = await Promise.all(Object.values(adapters).map((load) => load()));
  process.stdout.write(`${JSON.stringify(configJsonSchema(commands), null, 2)}\n`);
  return 0;
}

function parse(
  name: string,
  args: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  usage: string,
  commonUsage: string,
): { values: FlagValues; positionals: string[] } | number {
  const all = { ...options, help: { type: 'boolean', short: 'h' } } as const;
  let parsed: { values: FlagValues; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: all, allowPositionals: true, strict: true });
  } catch (error) {
    return usageError(name, describeError(error), [usage, commonUsage].filter(Boolean).join('\n\n'));
  }
  if (parsed.values.help) {
    process.stdout.write(`${[usage, commonUsage].filter(Boolean).join('\n\n')}\n`);
    return 0;
  }
  return parsed;
}

function usageError(name: string, message: string, usage: string): number {
  process.stderr.write(`bridge ${name}: ${escapeControl(message)}\n\n${usage}\n`);
  return 2;
}

// Errors the user can fix are one paragraph on stderr: exit 2 for bad input, 1 otherwise.
async function report(name: string, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    const code = error instanceof BridgeError && error.code === 'invalid_input' ? 2 : 1;
    process.stderr.write(`bridge ${name}: ${escapeParagraph(describeError(error))}\n`);
    return code;
  }
}

/**
 * `--confirm`, `--confirm-fallback` and `--ask-missing`, checked once, as a function that puts
 * them into a config's server settings (re-applied to every reread config).
 */
function confirmFlags(values: FlagValues): (config: BridgeConfig) => BridgeConfig {
  const confirm = oneOf(values.confirm, '--confirm', CONFIRM_MODES);
  const fallback = oneOf(values['confirm-fallback'], '--confirm-fallback', CONFIRM_FALLBACKS);
  return (config) => {
    if (confirm) config.server.confirm = confirm;
    if (fallback) config.server.confirmFallback = fallback;
    if (values['ask-missing'] === true) config.server.askMissing = true;
    return config;
  };
}

function oneOf<T extends string>(
  value: FlagValues[string],
  flag: string,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new BridgeError(
    'invalid_input',
    `${flag} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`,
  );
}
