import { z } from 'zod';
import {
  BridgeError,
  type FlagValues,
  integerFlag,
  listFlag,
  stringFlag,
  withFlags,
} from '../../src/index.js';

/** Everything `bridge cli` is configured with, from flags or from a config file. */
export interface CliOptions {
  /** The program: a name looked up on PATH, or a path. */
  program: string;
  /** Only these subcommands (`cherry-pick`, `config view`); hidden ones become available when named. */
  allow?: string[];
  /** Never these subcommands. */
  deny?: string[];
  /** Directories `cwd` may point into; relative ones resolve against the base directory. Default: the base directory. */
  roots?: string[];
  /** Default time limit of one call, in milliseconds (a call may ask for less or more, up to 10× this). */
  timeoutMs?: number;
  /** Dangerous options to offer anyway (`exec`, `--upload-pack`, `-c`). */
  allowOptions?: string[];
  /** Read and write the discovery cache. Default true. */
  cache?: boolean;
  /** Characters of output per page; longer output is linked page by page. Default 20,000. */
  pageSize?: number;
  /** An overlay file to use instead of the bundled one. */
  overlay?: string;
  /** Time limit of each discovery command (`git log -h`, `kubectl get --help`). Default 5,000 ms. */
  probeTimeoutMs?: number;
  /**
   * Run every command under bubblewrap: the filesystem read-only except the roots and a private
   * /tmp, its own PID namespace. `network: false` also cuts the network. The bridge refuses to start
   * when the sandbox cannot run.
   */
  sandbox?: boolean | { network?: boolean };
}

const list = z.array(z.string().min(1));

/** The same options as a config-file entry (`kind: cli`). */
export const cliConfigSchema: z.ZodType<CliOptions> = z
  .object({
    program: z.string().min(1).describe('A program on PATH or a path to an executable, e.g. git.'),
    allow: list.optional().describe('Offer only these subcommands (e.g. "cherry-pick", "config view").'),
    deny: list.optional().describe('Never offer these subcommands.'),
    roots: list
      .optional()
      .describe(
        "Directories a call's cwd and file or directory arguments may point into (relative to the config); default: its directory.",
      ),
    timeoutMs: z.number().int().min(1).optional().describe('Default time limit of a call (default 60000).'),
    allowOptions: list.optional().describe('Dangerous options to offer anyway, e.g. "exec".'),
    cache: z.boolean().optional().describe('Read and write the discovery cache (default true).'),
    pageSize: z.number().int().min(1_000).optional().describe('Characters of output inline before paging.'),
    overlay: z.string().min(1).optional().describe('A YAML/JSON overlay instead of the bundled one.'),
    probeTimeoutMs: z.number().int().min(1).optional().describe('Time limit of each discovery command.'),
    sandbox: z
      .union([z.boolean(), z.object({ network: z.boolean().optional() }).strict()])
      .optional()
      .describe(
        'Run each command under bubblewrap: read-only filesystem except the roots, private /tmp, own PID namespace; {network: false} cuts the network too.',
      ),
  })
  .strict();

export const cliFlags = {
  allow: { type: 'string', multiple: true },
  deny: { type: 'string', multiple: true },
  root: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  'allow-option': { type: 'string', multiple: true },
  'no-cache': { type: 'boolean' },
  'page-size': { type: 'string' },
  overlay: { type: 'string' },
  'probe-timeout': { type: 'string' },
  sandbox: { type: 'boolean' },
  'sandbox-network': { type: 'string' },
} as const;

export const cliUsage = `Usage: bridge cli <program> [flags]

Serves a command-line program as MCP tools, one per subcommand (git_cherry_pick runs
"git cherry-pick"). Subcommands and options are discovered from the installed binary (git's own
completion helpers, Cobra's __complete, or --help) and cached. Curated overlays ship for git, jq,
curl, wget, openssl, gpg, npm, sed, sqlite3 and tar; options whose value is a program to run are
not offered unless --allow-option names them.

Flags:
  --allow CMD[,CMD...]     offer only these subcommands ("cherry-pick", "config view"); names a
                           hidden one (git: config, bisect, submodule, daemon...) to offer it (repeatable)
  --deny CMD[,CMD...]      never offer these subcommands (repeatable)
  --root DIR               a directory the tools' "cwd" and file or directory arguments may
                           point into (repeatable; default: the working directory)
  --timeout MS             default time limit of a call in milliseconds (default 60000); a call
                           may set its own "timeout" up to 10 times this
  --allow-option OPT       offer a dangerous option anyway, e.g. --allow-option exec
                           (git: config, upload-pack, receive-pack, exec, output, ...) (repeatable)
  --no-cache               rediscover the program instead of reading the discovery cache
                           (cache: $BRIDGE_CACHE_DIR, else $XDG_CACHE_HOME/bridge, else ~/.cache/bridge)
  --page-size N            characters of output shown inline; the rest is paged through
                           resources (default 20000)
  --overlay FILE           a YAML/JSON overlay to use instead of the bundled one
  --probe-timeout MS       time limit of each discovery command such as "git log -h" (default
                           5000); a subcommand whose help does not finish in time is skipped
  --sandbox                run every command under bubblewrap (bwrap): filesystem read-only except
                           the roots and a private /tmp, own PID namespace; refuses to start when
                           the sandbox cannot run here
  --sandbox-network on|off network inside the sandbox (default on; implies --sandbox)`;

/** The flag of each option field, for messages about values the schema refuses. */
export const cliFlagNames: Record<string, string> = {
  program: 'the program',
  allow: '--allow',
  deny: '--deny',
  roots: '--root',
  timeoutMs: '--timeout',
  allowOptions: '--allow-option',
  cache: '--no-cache',
  pageSize: '--page-size',
  overlay: '--overlay',
  probeTimeoutMs: '--probe-timeout',
  sandbox: '--sandbox / --sandbox-network',
};

/** Maps `bridge cli` positionals and flags to options; `cliConfigSchema` checks them. */
export function parseCliFlags(positionals: string[], values: FlagValues): CliOptions {
  const [program, ...extra] = positionals;
  if (!program) throw new BridgeError('invalid_input', 'bridge cli needs a program, e.g. "bridge cli git"');
  if (extra.length > 0) {
    throw new BridgeError('invalid_input', `bridge cli takes one program, got also "${extra.join(' ')}"`);
  }
  return withFlags<CliOptions>(
    { program },
    {
      allow: listFlag(values, 'allow', { commas: true }),
      deny: listFlag(values, 'deny', { commas: true }),
      roots: listFlag(values, 'root'),
      allowOptions: listFlag(values, 'allow-option', { commas: true }),
      timeoutMs: integerFlag(values, 'timeout'),
      pageSize: integerFlag(values, 'page-size'),
      cache: values['no-cache'] === true ? false : undefined,
      overlay: stringFlag(values, 'overlay'),
      probeTimeoutMs: integerFlag(values, 'probe-timeout'),
      sandbox: sandboxFlag(values),
    },
  );
}

// `--sandbox-network on|off` implies `--sandbox`; without either the option stays unset.
function sandboxFlag(values: FlagValues): CliOptions['sandbox'] {
  const network = stringFlag(values, 'sandbox-network');
  if (network !== undefined) {
    if (network !== 'on' && network !== 'off') {
      throw new BridgeError('invalid_input', `--sandbox-network expects on or off, got "${network}"`);
    }
    return { network: network === 'on' };
  }
  return values.sandbox === true ? true : undefined;
}
