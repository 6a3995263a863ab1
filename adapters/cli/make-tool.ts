import { basename, join } from 'node:path';
import {
  MAX_SCHEMA_ENTRIES,
  realOrSelf,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from '../../src/index.js';
import { boundOptions } from './bound-options.js';
import { buildArgv } from './build-argv.js';
import { checkProjectNpmrc } from './check-npmrc.js';
import { type Policy, resolveCwd, safeOptions } from './check-policy.js';
import type { CliSpec, CommandSpec } from './cli-spec.js';
import { commandToResult, OUTPUT_SCHEMA } from './command-to-result.js';
import { confinePaths } from './confine-paths.js';
import { findNpmReferences } from './find-npm-references.js';
import { findProject } from './find-project.js';
import { inferAnnotations } from './infer-annotations.js';
import { QUIET_ENV } from './probe.js';
import { runCommand } from './run-command.js';
import { type Sandbox, writableRoots } from './sandbox.js';
import { shellQuote } from './shell-quote.js';

/** What every tool of one source shares. */
export interface ToolSettings {
  spec: CliSpec;
  policy: Policy;
  globalArgs: string[];
  env: Record<string, string>;
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  pageSize: number;
  openWorldByDefault: boolean;
  /** The live process groups of this source, killed when it closes. */
  groups: Set<number>;
  /** Set with `--sandbox`: every command runs inside it. */
  sandbox?: Sandbox;
  /** Directory names no path argument may name or point below (the overlay's `protectedDirs`). */
  protectedDirs?: string[];
  /** The program looks for its project above cwd (the overlay names a `ceilingEnv`): git. */
  aboveCwd?: boolean;
  /** Told of a tool whose input schema left options out to stay within the bound. */
  onOptionsLeft?: (tool: string, left: string[], of: number) => void;
  /** The option naming the program's project, found from cwd within the roots (the overlay's `projectArg`): npm. */
  project?: { flag: string; markers: string[]; files?: string[]; references?: 'npm' };
}

/**
 * The tool name of a subcommand: program and path words joined by `_`, hyphens included
 * (`git cherry-pick` → `git_cherry_pick`). The tool keeps its path, so it maps back exactly.
 */
export function toolNameOf(program: string, path: readonly string[]): string {
  return [program, ...path].join('_').replace(/[^A-Za-z0-9_.]/g, '_');
}

/** The program's name in its tools: the binary's file name without a script extension. */
export function programNameOf(binary: string): string {
  return basename(binary).replace(/\.(mjs|cjs|js|sh|py|exe)$/i, '');
}

/** One subcommand as a tool: schema, annotations, and an invoke that runs it safely. */
export function makeTool(command: CommandSpec, settings: ToolSettings): ToolDefinition {
  const program = programNameOf(settings.spec.binary);
  const safe = safeOptions(command, settings.policy);
  const name = toolNameOf(program, command.path);
  const { schema, options, left } = boundOptions(command, safe.options, {
    defaultTimeoutMs: settings.defaultTimeoutMs,
    maxTimeoutMs: settings.maxTimeoutMs,
    roots: settings.policy.roots,
  });
  const annotations: ToolAnnotations = inferAnnotations(command.path, {
    program,
    description: command.description,
    openWorldByDefault: settings.openWorldByDefault,
    ...(command.annotations ? { overrides: command.annotations } : {}),
  });
  const label = [program, ...(command.run ?? command.path)].join(' ');
  const notes = [`Runs \`${label}\`; a non-zero exit is an error.`];
  if (safe.removed.length > 0) notes.push(`Not offered for safety: ${safe.removed.join(', ')}.`);
  if (left.length > 0) {
    const flags = left.map((option) => option.flag);
    notes.push(
      `${flags.length.toLocaleString('en-US')} more options are not offered, to keep this tool's input schema within ${MAX_SCHEMA_ENTRIES.toLocaleString('en-US')} entries (${flags.slice(0, 5).join(', ')}${flags.length > 5 ? '…' : ''}).`,
    );
    settings.onOptionsLeft?.(name, flags, safe.options.length);
  }
  const tool: ToolDefinition = {
    name,
    title: label,
    description: `${command.description}\n\n${notes.join(' ')}`,
    inputSchema: schema,
    outputSchema: OUTPUT_SCHEMA,
    annotations,
    // Commands that reach the network or walk whole histories may outlast a client's call timeout.
    taskSupport: command.longRunning || annotations.openWorldHint ? 'optional' : 'forbidden',
    invoke: (args, context) => invokeCommand(command, options, args, context, settings, label),
    // What the user confirms is what runs: the same argv and cwd as invoke builds.
    async preview(args, context) {
      const { argv, cwd } = await planCommand(command, options, args, context, settings);
      const where = settings.sandbox ? `in ${cwd}, sandboxed` : `in ${cwd}`;
      return `${[settings.spec.binary, ...argv].map(shellQuote).join(' ')}  (${where})`;
    },
  };
  return tool;
}

/**
 * The argv and working directory of a call, every argument checked: options and operands by the
 * policy, `cwd` and every path-valued argument against the roots (and the client's MCP roots).
 */
async function planCommand(
  command: CommandSpec,
  options: CommandSpec['options'],
  args: Record<string, unknown>,
  context: ToolContext,
  settings: ToolSettings,
): Promise<{ argv: string[]; cwd: string; writable: string[] }> {
  const clientRoots = (await context.roots?.())?.map(realOrSelf);
  const cwd = resolveCwd(typeof args.cwd === 'string' ? args.cwd : undefined, settings.policy, clientRoots);
  const { project } = settings;
  const projectDir = project && findProject(cwd, settings.policy.roots, project.markers);
  const globalArgs = project
    ? [...settings.globalArgs, `${project.flag}=${projectDir}`]
    : settings.globalArgs;
  const argv = buildArgv(settings.spec, command, options, args, settings.policy, globalArgs);
  confinePaths(command, options, args, cwd, settings.policy, clientRoots, {
    ...(settings.protectedDirs ? { protectedDirs: settings.protectedDirs } : {}),
    atFiles: settings.spec.flavor !== 'git',
    aboveCwd: settings.aboveCwd === true,
    ...(project && projectDir !== undefined ? { projectFiles: projectFilesOf(project, projectDir) } : {}),
  });
  // Only a sandbox binds them (checking each exists): an unsandboxed call needs none.
  const writable = settings.sandbox ? writableRoots(settings.policy.roots, clientRoots) : [];
  return { argv, cwd, writable };
}

// What a program reads from its project: its own files, and the places the project names (npm's
// workspaces, file: dependencies and lockfile links), none of which may lead out of the roots;
// npm's project .npmrc may not choose how it connects either (see check-npmrc.ts).
function projectFilesOf(
  project: NonNullable<ToolSettings['project']>,
  dir: string,
): Array<{ path: string; what: string }> {
  const files = (project.files ?? project.markers).map((file) => ({
    path: join(dir, file),
    what: 'the project file',
  }));
  if (project.references !== 'npm') return files;
  checkProjectNpmrc(dir);
  return [...files, ...findNpmReferences(dir)];
}

async function invokeCommand(
  command: CommandSpec,
  options: CommandSpec['options'],
  args: Record<string, unknown>,
  context: ToolContext,
  settings: ToolSettings,
  label: string,
): Promise<ToolResult> {
  const { argv, cwd, writable } = await planCommand(command, options, args, context, settings);
  const timeoutMs = typeof args.timeout === 'number' ? args.timeout : settings.defaultTimeoutMs;
  const run = settings.sandbox
    ? settings.sandbox.wrap({ file: settings.spec.binary, args: argv, cwd, writable })
    : { file: settings.spec.binary, args: argv };
  const outcome = await runCommand({
    groups: settings.groups,
    ...run,
    guard: [settings.spec.binary, ...argv].join(' ').slice(0, 200),
    cwd,
    env: { ...QUIET_ENV, ...settings.env, ...command.env },
    timeoutMs,
    signal: context.signal,
    ...(command.stdin && typeof args.stdin === 'string' ? { stdin: args.stdin } : {}),
    onLines: (lines) => context.progress({ progress: lines, message: `${lines} lines of output so far` }),
  });
  return commandToResult(outcome, {
    label,
    pageSize: settings.pageSize,
    timeoutMs,
    context,
  });
}
