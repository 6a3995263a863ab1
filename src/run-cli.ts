import { parseArgs } from 'node:util';
import type { AdapterCommand, FlagValues } from './command.js';
import { shorthandConfig } from './config/build-sources.js';
import { configCommand, inspectCommand, runConfig, serveCommand } from './config/commands.js';
import { SERVER_OPTIONS, SERVER_USAGE } from './config/server-flags.js';
import { BridgeError, describeError } from './errors.js';
import { escapeControl, escapeParagraph } from './escape-control.js';

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
  if (name === 'serve') return serveCommand(rest, adapters);
  if (name === 'inspect') return inspectCommand(rest, adapters);
  if (name === 'config') return configCommand(rest, adapters);
  const load = adapters[name];
  if (!load) {
    const hint = iproute2Hint(argv);
    if (hint) {
      process.stderr.write(hint);
      return 2;
    }
    process.stderr.write(`bridge: unknown command "${escapeControl(name)}".\n\n${topUsage(adapters)}`);
    return 2;
  }
  const command = await load();
  let values: FlagValues;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...SERVER_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(
      `bridge ${name}: ${escapeParagraph(describeError(error))}\n\n${command.usage}\n\n${SERVER_USAGE}\n`,
    );
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${command.usage}\n\n${SERVER_USAGE}\n`);
    return 0;
  }

  try {
    // A shorthand is a one-source config: one code path serves, watches and reloads both.
    const config = shorthandConfig(command, command.parseFlags(positionals, values), process.cwd());
    return await runConfig(config, values);
  } catch (error) {
    const code = error instanceof BridgeError && error.code === 'invalid_input' ? 2 : 1;
    // The error may quote the spec, config or help it came from.
    process.stderr.write(`bridge ${name}: ${escapeParagraph(describeError(error))}\n`);
    return code;
  }
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
  const shown = escapeControl(argv.join(' '));
  const iproute2 =
    words.some((word) => IPROUTE2_OBJECTS.has(word)) ||
    (words.length === 0 && argv.some((arg) => IPROUTE2_OPTIONS.test(arg)));
  if (!iproute2) return undefined;
  return `bridge: "${shown}" looks like a command for iproute2's bridge (the Linux network bridge tool).
This "bridge" serves OpenAPI, GraphQL and command-line programs as MCP servers (also installed as
"mcp-bridge"). For the network tool, run it by its path: /sbin/bridge ${shown}
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

${SERVER_USAGE}
`;
}
