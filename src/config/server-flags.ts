import type { ParseArgsConfig } from 'node:util';
import { AUTH_OPTIONS, AUTH_USAGE, authFromFlags } from '../auth/auth-flags.js';
import type { FlagValues } from '../command.js';
import { BridgeError, describeError } from '../errors.js';
import { listFlag, withFlags } from '../flags.js';
import type { Logger, LogLevel } from '../logger.js';
import type { RunningBridge, TransportOptions } from '../serve.js';
import { parseListenAddress } from '../transports/listen-address.js';

// The server flags every serving command accepts (a source shorthand, `serve`, partly `inspect`):
// how the bridge is reached and protected, and how it logs. They map flags to settings; the
// commands in commands.ts and run-cli.ts apply them over a config's "server" section.

/** Flags every serving command accepts, besides the auth flags. */
const COMMON_OPTIONS = {
  http: { type: 'string' },
  stdio: { type: 'boolean' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  'max-body-bytes': { type: 'string' },
  'header-timeout-ms': { type: 'string' },
  'body-timeout-ms': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-connections-per-address': { type: 'string' },
  'max-calls-per-caller': { type: 'string' },
  'max-streams-per-caller': { type: 'string' },
  'stream-lifetime-ms': { type: 'string' },
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

/** The help text of the server flags, auth flags included. */
export const SERVER_USAGE = `Server flags (every command):
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
  --max-connections-per-address N
                           open HTTP connections from one address (an IPv6 /64) at once
                           (default a quarter of --max-connections)
  --max-calls-per-caller N tools/call requests one caller may run at once over HTTP (default 32)
  --max-streams-per-caller N
                           listen and GET event streams one caller may hold open (default 32)
  --stream-lifetime-ms N   how long such a stream stays open before the server ends it and the
                           client opens it again (default 600000)
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

/** Every server flag, auth flags included, for `parseArgs`. */
export const SERVER_OPTIONS = {
  ...COMMON_OPTIONS,
  ...AUTH_OPTIONS,
} as const satisfies ParseArgsConfig['options'];

/**
 * The transport: from the flags when `--http` is given, else `configured`; with the HTTP
 * protection the flags ask for, and `attach` to bind it to the running bridge.
 */
export function serverFrom(
  values: FlagValues,
  log: Logger,
  configured: TransportOptions,
): { transport: TransportOptions; attach(bridge: RunningBridge): void } {
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
      ...(auth.proxies ? { proxies: auth.proxies } : {}),
    };
  }
  return { transport, attach: (bridge) => auth?.attach(bridge) };
}

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
  const limits = withFlags(
    { ...base?.limits },
    {
      headerTimeoutMs: positive(values, 'header-timeout-ms'),
      bodyTimeoutMs: positive(values, 'body-timeout-ms'),
      maxConnections: positive(values, 'max-connections'),
      maxConnectionsPerAddress: positive(values, 'max-connections-per-address'),
      maxCallsPerCaller: positive(values, 'max-calls-per-caller'),
      maxStreamsPerCaller: positive(values, 'max-streams-per-caller'),
      streamLifetimeMs: positive(values, 'stream-lifetime-ms'),
    },
  );
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

/** `--log-level` (or the config's `logLevel`): `info` when absent; `warn` means `warning`. */
export function parseLogLevel(value: FlagValues[string]): LogLevel {
  if (value === undefined) return 'info';
  if (value === 'warn') return 'warning';
  if (value === 'debug' || value === 'info' || value === 'warning' || value === 'error') return value;
  throw new BridgeError(
    'invalid_input',
    `--log-level expects debug, info, warning or error, got "${String(value)}"`,
  );
}
