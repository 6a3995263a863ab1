import { type ParseArgsConfig, parseArgs } from 'node:util';
import { AUTH_OPTIONS, AUTH_USAGE, authFromFlags } from './auth/auth-flags.js';
import type { AdapterCommand, FlagValues } from './command.js';
import { shorthandConfig } from './config/build-sources.js';
import {
  type CommonFlags,
  configCommand,
  inspectCommand,
  runConfig,
  serveCommand,
} from './config/commands.js';
import { BridgeError, describeError } from './errors.js';
import { listFlag } from './flags.js';
import type { LogLevel } from './logger.js';
import type { TransportOptions } from './serve.js';
import { parseListenAddress } from './transports/serve-http.js';

/** Flags every source command accepts. */
const COMMON_OPTIONS = {
  http: { type: 'string' },
  stdio: { type: 'boolean' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  'max-body-bytes': { type: 'string' },
  'header-timeout-ms': { type: 'string' },
  'body-timeout-ms': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-calls-per-caller': { type: 'string' },
  'max-sessions-per-caller': { type: 'string' },
  'log-level': { type: 'string' },
  'no-watch': { type: 'boolean' },
  confirm: { type: 'string' },
  'confirm-fallback': { type: 'string' },
  'ask-missing': { type: 'boolean' },
  store: { type: 'string' },
  instance: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const COMMON_USAGE = `Server flags (every command):
  --http [HOST:]PORT       serve Streamable HTTP on http://HOST:PORT/mcp instead of stdio
                           (HOST defaults to 127.0.0.1; PORT 0 picks a free port)
  --stdio                  serve over stdio even when the config file says transport: http
  --allowed-host NAME      also accept this Host header (repeatable; localhost is always accepted
                           on a loopback bind)
  --allowed-origin NAME    also accept browser requests from this origin host (repeatable)
  --max-body-bytes N       largest HTTP request body (default 4194304)
  --header-timeout-ms N    time for a request's headers to arrive (default 10000)
  --body-timeout-ms N      time for a request's body to arrive after its headers (default 10000)
  --max-connections N      open HTTP connections at once (default 1024)
  --max-calls-per-caller N tools/call requests one caller may run at once over HTTP (default 32)
  --max-sessions-per-caller N
                           initialize-era sessions one caller may hold; its next one replaces its
                           own idlest (default 100)
  --log-level LEVEL        debug | info | warning | error (default info; logs go to stderr)
  --no-watch               do not rebuild the tools when the spec or config file changes
  --confirm MODE           ask the user before a call runs: never | destructive | always
                           (default never; a source's or tool's "confirm" in a config wins)
  --confirm-fallback WHAT  when the client cannot ask the user: refuse (default) | run
  --ask-missing            ask the user for required arguments the model left out
  --store URL              share tasks and paged outputs with other instances through Redis:
                           redis://HOST:PORT/DB (credentials from BRIDGE_STORE_PASSWORD)
  --instance NAME          name of this instance behind a load balancer: session ids start with
                           NAME. so the balancer can send each session back here (HTTP)
  -h, --help               show help

${AUTH_USAGE}`;

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
  if (name === 'serve') return serveCommand(rest, adapters, COMMON_FLAGS);
  if (name === 'inspect') return inspectCommand(rest, adapters, COMMON_FLAGS);
  if (name === 'config') return configCommand(rest, adapters);
  const load = adapters[name];
  if (!load) {
    const hint = iproute2Hint(argv);
    if (hint) {
      process.stderr.write(hint);
      return 2;
    }
    process.stderr.write(`bridge: unknown command "${name}".\n\n${topUsage(adapters)}`);
    return 2;
  }
  const command = await load();
  let values: FlagValues;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...COMMON_OPTIONS, ...AUTH_OPTIONS, ...command.options },
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
    // A shorthand is a one-source config: one code path serves, watches and reloads both.
    const config = shorthandConfig(command, command.parseFlags(positionals, values), process.cwd());
    return await runConfig(config, values, COMMON_FLAGS);
  } catch (error) {
    const code = error instanceof BridgeError && error.code === 'invalid_input' ? 2 : 1;
    process.stderr.write(`bridge ${name}: ${describeError(error)}\n`);
    return code;
  }
}

/** The server flags, for the commands defined outside this file (`serve`, `inspect`). */
const COMMON_FLAGS: CommonFlags = {
  options: { ...COMMON_OPTIONS, ...AUTH_OPTIONS },
  usage: COMMON_USAGE,
  parseLogLevel,
  serverFrom(values, log, configured) {
    let transport = transportFrom(values, configured);
    const auth = authFromFlags(values, transport.kind === 'http' ? transport.address : undefined, {
      log,
      env: process.env,
      cwd: process.cwd(),
    });
    if (auth && transport.kind === 'http') {
      transport = {
        ...transport,
        authenticate: auth.authenticate,
        ...(auth.authorize ? { authorize: auth.authorize } : {}),
        routes: auth.routes,
      };
    }
    return { transport, attach: (bridge) => auth?.attach(bridge) };
  },
};

// Flags override the configured transport field by field: `--http` the address, `--max-body-bytes`
// the limit; `--allowed-host`/`--allowed-origin` add to the configured lists.
function transportFrom(values: FlagValues, configured: TransportOptions): TransportOptions {
  const http = values.http;
  if (values.stdio === true) {
    if (typeof http === 'string') {
      throw new BridgeError(
        'invalid_input',
        '--stdio and --http cannot be used together; pick one transport',
      );
    }
    return { kind: 'stdio' };
  }
  const base = configured.kind === 'http' ? configured : undefined;
  if (typeof http !== 'string' && !base) return configured;
  const maxRequestBodySize = positive(values, 'max-body-bytes') ?? base?.maxRequestBodySize;
  const limits = {
    ...base?.limits,
    ...definedLimits({
      headerTimeoutMs: positive(values, 'header-timeout-ms'),
      bodyTimeoutMs: positive(values, 'body-timeout-ms'),
      maxConnections: positive(values, 'max-connections'),
      maxCallsPerCaller: positive(values, 'max-calls-per-caller'),
    }),
  };
  const maxSessionsPerCaller = positive(values, 'max-sessions-per-caller') ?? base?.maxSessionsPerCaller;
  let address: ReturnType<typeof parseListenAddress>;
  try {
    // Without --http there is a configured HTTP transport (see the early return above).
    address = typeof http === 'string' ? parseListenAddress(http) : base!.address;
  } catch (error) {
    throw new BridgeError('invalid_input', describeError(error));
  }
  const hosts = [...(base?.allowedHosts ?? []), ...(listFlag(values, 'allowed-host') ?? [])];
  const origins = [...(base?.allowedOrigins ?? []), ...(listFlag(values, 'allowed-origin') ?? [])];
  return {
    ...base,
    kind: 'http',
    address,
    ...(hosts.length > 0 ? { allowedHosts: hosts } : {}),
    ...(origins.length > 0 ? { allowedOrigins: origins } : {}),
    ...(maxRequestBodySize === undefined ? {} : { maxRequestBodySize }),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    ...(maxSessionsPerCaller === undefined ? {} : { maxSessionsPerCaller }),
  };
}

// A flag that takes a positive integer: its value, `undefined` when absent, or a usage error.
function positive(values: FlagValues, flag: string): number | undefined {
  const raw = values[flag];
  if (typeof raw !== 'string') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new BridgeError('invalid_input', `--${flag} expects a positive integer, got "${raw}"`);
  }
  return value;
}

function definedLimits<T extends Record<string, number | undefined>>(
  limits: T,
): Partial<Record<keyof T, number>> {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)) as Partial<
    Record<keyof T, number>
  >;
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

// iproute2 ships `/sbin/bridge` (`bridge link`, `bridge -s fdb show`): its objects and options.
const IPROUTE2_OBJECTS = new Set(['link', 'fdb', 'mdb', 'vlan', 'vni', 'monitor']);
const IPROUTE2_OPTIONS =
  /^-(s|d|j|p|c|n|b|o|t|V|stat(istics)?|det(ails)?|json|pretty|color|netns|batch|force|oneline|timestamp|compressvlans|Version)$/;

/**
 * When the arguments are iproute2's, the user meant the Linux bridge tool that this command
 * shadows on PATH: say so and where that one lives, instead of a generic "unknown command".
 */
export function iproute2Hint(argv: readonly string[]): string | undefined {
  // An object anywhere (`-n NETNS link`: an option may take a value), or iproute2 options alone.
  const words = argv.filter((arg) => !arg.startsWith('-'));
  const iproute2 =
    words.some((word) => IPROUTE2_OBJECTS.has(word)) ||
    (words.length === 0 && argv.some((arg) => IPROUTE2_OPTIONS.test(arg)));
  if (!iproute2) return undefined;
  return `bridge: "${argv.join(' ')}" looks like a command for iproute2's bridge (the Linux network bridge tool).
This "bridge" serves OpenAPI, GraphQL and command-line programs as MCP servers (also installed as
"mcp-bridge"). For the network tool, run it by its path: /sbin/bridge ${argv.join(' ')}
(or /usr/sbin/bridge). Run "bridge --help" for this program's commands.
`;
}

function topUsage(adapters: Record<string, unknown>): string {
  return `Usage: bridge <command> [arguments] [flags]

Turns OpenAPI, GraphQL and command-line programs into MCP servers. Also installed as
"mcp-bridge", the name to use in client configurations (iproute2 ships another "bridge").

Commands:
  serve <config>           serve every source a config file lists (hot reload included)
  inspect <config|source>  print the tools a client would see, with token estimates
  config schema            print the JSON Schema of the config file
  ${`${Object.keys(adapters).join('|')} …`.padEnd(23)}  serve one source (a one-source config)
Run "bridge <command> --help" for a command's arguments and flags.

${COMMON_USAGE}
`;
}
