import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { AdapterCommand, FlagValues } from './command.js';
import { BridgeError, describeError } from './errors.js';
import { createStderrLogger, type LogLevel } from './logger.js';
import { serve, type TransportOptions } from './serve.js';
import { parseListenAddress } from './transports/serve-http.js';

/** Flags every source command accepts. */
const COMMON_OPTIONS = {
  http: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  'max-body-bytes': { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const COMMON_USAGE = `Server flags (every command):
  --http [HOST:]PORT       serve Streamable HTTP on http://HOST:PORT/mcp instead of stdio
                           (HOST defaults to 127.0.0.1; PORT 0 picks a free port)
  --allowed-host NAME      also accept this Host header (repeatable; localhost is always accepted
                           on a loopback bind)
  --allowed-origin NAME    also accept browser requests from this origin host (repeatable)
  --max-body-bytes N       largest HTTP request body (default 4194304)
  --log-level LEVEL        debug | info | warning | error (default info; logs go to stderr)
  -h, --help               show help`;

/**
 * The command line: `bridge <command> …`. Returns the exit code. Errors the user can fix are one
 * paragraph on stderr and exit code 1 (2 for usage errors).
 */
export async function runCli(
  argv: string[],
  adapters: Record<string, () => Promise<AdapterCommand>>,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stderr.write(topUsage(adapters));
    return name === undefined ? 2 : 0;
  }
  if (name === '--version') {
    process.stdout.write('0.1.0\n');
    return 0;
  }
  const load = adapters[name];
  if (!load) {
    process.stderr.write(`bridge: unknown command "${name}".\n\n${topUsage(adapters)}`);
    return 2;
  }
  const command = await load();
  let values: FlagValues;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...COMMON_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`bridge ${name}: ${describeError(error)}\n\n${command.usage}\n\n${COMMON_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${command.usage}\n\n${COMMON_USAGE}\n`);
    return 0;
  }

  try {
    const log = createStderrLogger(parseLogLevel(values['log-level']));
    const transport = transportFrom(values);
    const source = command.createSource(command.parseFlags(positionals, values), process.cwd());
    const bridge = await serve({ sources: [source], transport, log });
    const stop = () => void bridge.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await bridge.closed;
    // Anything still holding the event loop (a stuck socket) must not keep the process alive.
    setTimeout(() => process.exit(0), 2_000).unref();
    return 0;
  } catch (error) {
    const code = error instanceof BridgeError && error.code === 'invalid_input' ? 2 : 1;
    process.stderr.write(`bridge ${name}: ${describeError(error)}\n`);
    return code;
  }
}

function transportFrom(values: FlagValues): TransportOptions {
  const http = values.http;
  if (typeof http !== 'string') return { kind: 'stdio' };
  const maxBody = values['max-body-bytes'];
  let maxRequestBodySize: number | undefined;
  if (typeof maxBody === 'string') {
    maxRequestBodySize = Number(maxBody);
    if (!Number.isSafeInteger(maxRequestBodySize) || maxRequestBodySize <= 0) {
      throw new BridgeError('invalid_input', `--max-body-bytes expects a positive integer, got "${maxBody}"`);
    }
  }
  let address: ReturnType<typeof parseListenAddress>;
  try {
    address = parseListenAddress(http);
  } catch (error) {
    throw new BridgeError('invalid_input', describeError(error));
  }
  return {
    kind: 'http',
    address,
    ...stringList('allowedHosts', values['allowed-host']),
    ...stringList('allowedOrigins', values['allowed-origin']),
    ...(maxRequestBodySize === undefined ? {} : { maxRequestBodySize }),
  };
}

function stringList<K extends string>(key: K, value: FlagValues[string]): { [P in K]?: string[] } {
  if (!Array.isArray(value)) return {};
  return { [key]: value.map(String) } as { [P in K]?: string[] };
}

function parseLogLevel(value: FlagValues[string]): LogLevel {
  if (value === undefined) return 'info';
  if (value === 'warn') return 'warning';
  if (value === 'debug' || value === 'info' || value === 'warning' || value === 'error') return value;
  throw new BridgeError(
    'invalid_input',
    `--log-level expects debug, info, warning or error, got "${String(value)}"`,
  );
}

function topUsage(adapters: Record<string, unknown>): string {
  return `Usage: bridge <command> [arguments] [flags]

Turns OpenAPI, GraphQL and command-line programs into MCP servers.

Commands: ${Object.keys(adapters).join(', ')}
Run "bridge <command> --help" for a command's arguments and flags.

${COMMON_USAGE}
`;
}
