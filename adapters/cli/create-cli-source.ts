import { setMaxListeners } from 'node:events';
import { mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import {
  BridgeError,
  inside,
  type LoadContext,
  listSome,
  MAX_SCHEMA_ENTRIES,
  quote,
  type Source,
  type ToolDefinition,
} from '../../src/index.js';
import { applyOverlay } from './apply-overlay.js';
import { cacheFile, readCachedSpec, writeCachedSpec } from './cache-discovery.js';
import { dangerousValuesOf, isCommandOffered, isDangerousOption, type Policy } from './check-policy.js';
import type { CliSpec, OptionSpec } from './cli-spec.js';
import { cobraCompletions, discoverCobra } from './discover-cobra.js';
import { discoverGeneric } from './discover-generic.js';
import { type Discovered, discoverGit } from './discover-git.js';
import { findProgram } from './find-program.js';
import { warnOfHomeInRoots } from './guard-home-config.js';
import { inferredDangerousFlags } from './infer-dangerous-flags.js';
import { inferPaths } from './infer-paths.js';
import { findBundledOverlay, type Overlay, readOverlay } from './load-overlay.js';
import { makeTool, programNameOf, toolNameOf } from './make-tool.js';
import type { CliOptions } from './options.js';
import { probe } from './probe.js';
import { killAllGroups } from './run-command.js';
import { prepareSandbox, type Sandbox } from './sandbox.js';

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The CLI source. Steps: find the binary → read its overlay → discover (or read the cache) →
 * apply the overlay → keep the offered subcommands → one tool each.
 */
export function createCliSource(options: CliOptions, baseDir: string): Source {
  // Only this source's commands: another CLI source, or this one's successor after a reload, goes on.
  const groups = new Set<number>();
  let offered: { prefix: string; names: string[] } | undefined;
  return {
    label: `cli ${options.program}`,
    async load(context) {
      const { tools, binary } = await loadTools(options, baseDir, context, groups);
      offered = {
        prefix: `${toolNameOf(programNameOf(binary), [])}_`,
        names: tools.map((tool) => tool.name),
      };
      return tools;
    },
    explainMissing: (name) => explainMissing(name, options, offered),
    async close() {
      killAllGroups('SIGKILL', groups);
    },
  };
}

async function loadTools(
  options: CliOptions,
  baseDir: string,
  outer: LoadContext,
  groups: Set<number>,
): Promise<{ tools: ToolDefinition[]; binary: string }> {
  // Discovery runs dozens of probes at once, each listening for the abort: one linked signal with
  // no listener limit keeps Node from warning about a leak that is not one.
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  if (outer.signal.aborted) controller.abort(outer.signal.reason);
  else outer.signal.addEventListener('abort', () => controller.abort(outer.signal.reason), { once: true });
  const context: LoadContext = { log: outer.log, signal: controller.signal };
  const binary = findProgram(options.program, baseDir);
  const program = basename(binary);
  const overlayPath = options.overlay ? resolve(baseDir, options.overlay) : findBundledOverlay(program);
  const overlay = overlayPath ? await readOverlay(overlayPath, context.signal) : undefined;
  const policy = policyOf(options, overlay, baseDir);
  warnOfHomeInRoots(program, policy.roots, context.log);
  // Before discovery: a sandbox that was asked for and cannot run stops the start.
  const sandbox = options.sandbox
    ? await prepareSandbox(
        { network: typeof options.sandbox === 'object' ? options.sandbox.network !== false : true },
        context.signal,
      )
    : undefined;
  const spec = await discover(binary, options, overlay, policy, context, sandbox);
  // Options that run programs, list files or follow links are dangerous wherever they are found
  // (git's overlay curates git's): offered only when --allow-option names them.
  if (spec.flavor !== 'git') {
    policy.dangerousOptions = [
      ...new Set([...policy.dangerousOptions, ...inferredDangerousFlags(spec.commands)]),
    ];
  }
  for (const skip of spec.skipped) {
    const message = `cli ${program}: skipped "${[program, ...skip.path].join(' ')}": ${skip.reason}`;
    if (skip.quiet) context.log.debug(message);
    else context.log.warn(message);
  }
  // A write flag the policy refuses gets no writer tool (its flag would be in the fixed words).
  // Not git: its overlay curates its modes, and its `-w` (hash-object) stores an object, no rewrite.
  const writers =
    spec.flavor === 'git' ? undefined : (option: OptionSpec) => !isDangerousOption(option, policy);
  const curated = applyOverlay(spec.commands, overlay, writers);
  const commands = inferPaths(curated, {
    flavor: spec.flavor,
    ...(overlay?.pathOptions ? { pathOptions: overlay.pathOptions } : {}),
    ...(overlay?.locationOptions ? { locationOptions: overlay.locationOptions } : {}),
  }).filter((command) => isCommandOffered(command.path, policy));
  if (commands.length === 0) {
    throw new BridgeError('load_failed', noneOffered(program, options, spec));
  }
  // The user (not the model, whose tool descriptions only say what is not offered) learns how to
  // offer one of them.
  const held = new Set(
    commands.flatMap((command) =>
      command.options.filter((option) => isDangerousOption(option, policy)).map((option) => option.flag),
    ),
  );
  if (held.size > 0) {
    context.log.info(
      `cli ${program}: not offered for safety: ${[...held].join(', ')}; --allow-option NAME offers one (README, Security model: some are only safe under --sandbox)`,
    );
  }
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const settings = {
    spec,
    policy,
    globalArgs: overlay?.globalArgs ?? [],
    env: { ...overlay?.env, ...ceilingOf(overlay?.ceilingEnv, policy.roots) },
    defaultTimeoutMs,
    maxTimeoutMs: defaultTimeoutMs * 10,
    pageSize: options.pageSize ?? 20_000,
    openWorldByDefault: overlay?.openWorldByDefault ?? spec.flavor === 'cobra',
    groups,
    ...(sandbox ? { sandbox } : {}),
    ...(overlay?.protectedDirs ? { protectedDirs: overlay.protectedDirs } : {}),
    // A program kept from looking above the roots for its project looks above cwd for it.
    aboveCwd: overlay?.ceilingEnv !== undefined,
    onOptionsLeft: (tool: string, left: string[], of: number) =>
      context.log.warn(
        `cli ${program}: ${tool} offers ${(of - left.length).toLocaleString('en-US')} of its ${of.toLocaleString('en-US')} options (${listSome(left, { most: 5, show: (flag) => flag, more: (n) => `and ${n.toLocaleString('en-US')} more` }).join(', ')} left out): a tool's input schema lists at most ${MAX_SCHEMA_ENTRIES.toLocaleString('en-US')} entries`,
      ),
    ...(overlay?.projectArg ? { project: overlay.projectArg } : {}),
  };
  if (sandbox)
    context.log.info(`cli ${program}: every command runs in a bubblewrap sandbox (${sandbox.bwrap})`);
  return { tools: commands.map((command) => makeTool(command, settings)), binary };
}

function policyOf(options: CliOptions, overlay: Overlay | undefined, baseDir: string): Policy {
  const roots = (options.roots ?? [baseDir]).map((root) => {
    const path = resolve(baseDir, root);
    try {
      if (!statSync(path).isDirectory()) throw new Error('not a directory');
      return realpathSync(path);
    } catch (error) {
      throw new BridgeError('invalid_input', `--root ${root}: ${path} is not a directory`, { cause: error });
    }
  });
  return {
    allow: options.allow,
    deny: options.deny ?? [],
    hidden: overlay?.hidden ?? [],
    dangerousOptions: overlay?.dangerousOptions ?? [],
    allowedOptions: [...(options.allowOptions ?? []), ...(overlay?.allowOptions ?? [])],
    dangerousValues: dangerousValuesOf(overlay?.dangerousValues ?? []),
    roots,
  };
}

/** `{NAME: parents of the outermost roots}`, `:`-separated, or nothing without a variable name. */
function ceilingOf(name: string | undefined, roots: readonly string[]): Record<string, string> {
  if (!name) return {};
  const outermost = roots.filter((root) => !roots.some((other) => other !== root && inside(root, other)));
  return { [name]: [...new Set(outermost.map((root) => dirname(root)))].join(delimiter) };
}

/**
 * Discovery, through the cache keyed by the binary's path, size and modification time: a valid
 * cache starts the tools without running the program at all (not even `--version`).
 */
async function discover(
  binary: string,
  options: CliOptions,
  overlay: Overlay | undefined,
  policy: Policy,
  context: LoadContext,
  sandbox: Sandbox | undefined,
): Promise<CliSpec> {
  // With --allow, only the named subcommands are examined; otherwise the overlay's default set.
  const requested = policy.allow
    ? [...new Set(policy.allow.map((pattern) => pattern.trim().split(/[\s/]+/)[0] as string))].sort()
    : overlay?.defaultCommands;
  const file = cacheFile(binary, requested, overlay);
  if (options.cache !== false) {
    const cached = readCachedSpec(file, binary);
    if (cached) return cached;
  }
  // The probes run in an empty directory of their own, never the user's: a program given an
  // argument it does not know may take it as a file to create (sqlite3 made a database named
  // `__complete` in the directory the bridge started in).
  const scratch = mkdtempSync(join(tmpdir(), 'bridge-discover-'));
  let spec: CliSpec;
  try {
    // Probes run with the arguments every call gets (wget's --no-config, curl's -q); git's
    // discovery, in a scratch repository, has probes of its own.
    const globalArgs = overlay?.globalArgs ?? [];
    const versionProbe = await probe(binary, ['--version'], {
      cwd: scratch,
      timeoutMs: 3_000,
      signal: context.signal,
      ...(sandbox ? { sandbox } : {}),
      globalArgs,
    });
    const version =
      versionProbe.text
        .split('\n')
        .find((line) => line.trim() !== '')
        ?.trim() ?? 'unknown';
    const program = basename(binary);
    const request = {
      binary,
      cwd: scratch,
      commands: requested,
      signal: context.signal,
      timeoutMs: options.probeTimeoutMs ?? 5_000,
      ...(sandbox ? { sandbox } : {}),
      globalArgs,
    };
    let flavor: CliSpec['flavor'];
    let found: Discovered;
    const completions =
      program === 'git'
        ? undefined
        : await cobraCompletions(binary, scratch, context.signal, sandbox, globalArgs);
    if (program === 'git') {
      flavor = 'git';
      found = await discoverGit(request);
    } else if (completions !== undefined) {
      flavor = 'cobra';
      found = await discoverCobra({ ...request, completions, program: programNameOf(binary) });
    } else {
      flavor = 'generic';
      found = await discoverGeneric(request);
    }
    spec = {
      program,
      binary,
      version,
      flavor,
      endOfOptions:
        overlay?.endOfOptions !== undefined
          ? overlay.endOfOptions
          : flavor === 'git'
            ? '--end-of-options'
            : '--',
      ...(overlay?.longValues ? { longValues: overlay.longValues } : {}),
      commands: found.commands,
      skipped: found.skipped,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  if (options.cache !== false && spec.commands.length > 0) {
    try {
      writeCachedSpec(file, spec);
    } catch (error) {
      context.log.debug(`cli ${spec.program}: discovery cache not written`, { file, error: String(error) });
    }
  }
  return spec;
}

function noneOffered(program: string, options: CliOptions, spec: CliSpec): string {
  const found = spec.commands.map((command) => command.path.join(' '));
  if (!options.allow) return `no subcommand of ${program} is offered (discovery found ${found.length})`;
  const allow = options.allow.join(',');
  if (found.length === 0) {
    return `--allow ${allow}: ${program} has no such subcommand (or its help could not be read; see the warnings above)`;
  }
  return `--allow ${allow}${options.deny ? ` with --deny ${options.deny.join(',')}` : ''} leaves nothing to offer; found: ${found.join(', ')}`;
}

// A subcommand tool that is not served was refused by --allow/--deny or is outside the default set.
function explainMissing(
  name: string,
  options: CliOptions,
  offered: { prefix: string; names: string[] } | undefined,
): string | undefined {
  if (!offered || !name.startsWith(offered.prefix)) return undefined;
  const limit = options.allow
    ? `--allow ${options.allow.join(',')}`
    : `its default set of subcommands (name another with --allow to offer it)`;
  const deny = options.deny?.length ? ` and --deny ${options.deny.join(',')}` : '';
  const program = basename(options.program);
  return `${quote(name)} is not offered: this server limits ${program} to ${limit}${deny}. Offered tools: ${offered.names.join(', ')}.`;
}
