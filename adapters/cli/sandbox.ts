import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { BridgeError, existingProtectedPaths, inside } from '../../src/index.js';

/** How commands are confined by the operating system (`--sandbox`). */
export interface SandboxOptions {
  /** Network access inside the sandbox. Default true. */
  network: boolean;
}

/** A working sandbox: wraps one command line into the bubblewrap command line that runs it. */
export interface Sandbox {
  readonly bwrap: string;
  wrap(command: { file: string; args: string[]; cwd: string; writable: readonly string[] }): {
    file: string;
    args: string[];
  };
}

/**
 * The bubblewrap command line around one command: the whole filesystem read-only, the writable
 * roots bound read-write over it, a private empty `/tmp`, fresh `/dev` and `/proc`, a new PID
 * namespace (a command's children, daemonised or not, die with it) and `--die-with-parent` (they
 * die with the bridge too, even on `kill -9`), the network shared or not.
 *
 * Written here rather than through `@anthropic-ai/sandbox-runtime`: that package's API wraps a
 * shell command string (`wrapWithSandbox(command: string)`, run by bash), while the bridge never
 * lets a shell see an argument; and it configures one process-wide policy, while the writable
 * directories here change per call (the client's MCP roots).
 */
function bwrapArgs(options: SandboxOptions, command: Parameters<Sandbox['wrap']>[0]): string[] {
  const args = [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(options.network ? [] : ['--unshare-net']),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/var/tmp',
    // Without the network, no daemon's socket either: a Unix socket is reached through the
    // filesystem, not the network namespace, and /run holds the system's (D-Bus, Docker,
    // databases). Sockets kept elsewhere stay reachable (see README).
    ...(options.network ? [] : ['--tmpfs', '/run']),
  ];
  // The user's runtime directory holds the session bus (through which `systemd-run --user` starts a
  // program outside any sandbox), keyrings and agents' sockets: hidden like /tmp.
  const runtime = runtimeDir();
  if (runtime) args.push('--tmpfs', runtime);
  // A program kept under /tmp stays runnable; everything else there is hidden.
  args.push('--ro-bind', command.file, command.file);
  // An ssh agent socket under /tmp or the runtime directory stays reachable with the network on,
  // so `git push` over ssh works as outside.
  const agent = process.env.SSH_AUTH_SOCK;
  const hidden = (path: string) =>
    /^\/(var\/)?tmp\//.test(path) || (runtime && path.startsWith(`${runtime}/`));
  if (options.network && agent && hidden(agent) && existsSync(agent)) args.push('--ro-bind', agent, agent);
  for (const root of command.writable) args.push('--bind', root, root);
  // What the bridge itself reads (its config, a source's files, its caches) stays read-only where a
  // writable root holds it: a command cannot rewrite it by a path no argument names (`cp x .`).
  for (const path of existingProtectedPaths()) {
    if (command.writable.some((root) => inside(path, root))) args.push('--ro-bind', path, path);
  }
  // Caches that programs keep under the home directory (read-only here) go to the private /tmp.
  args.push('--setenv', 'TMPDIR', '/tmp', '--setenv', 'XDG_CACHE_HOME', '/tmp/.cache');
  args.push('--chdir', command.cwd, '--', command.file, ...command.args);
  return args;
}

/**
 * Finds bubblewrap and proves it works here by running `true` in the sandbox exactly as commands
 * will run. Throws when it cannot: a requested sandbox that does not work stops the bridge from
 * starting, it is never skipped.
 */
export async function prepareSandbox(options: SandboxOptions, signal?: AbortSignal): Promise<Sandbox> {
  const bwrap = findOnPath('bwrap');
  if (!bwrap) {
    throw new BridgeError(
      'load_failed',
      '--sandbox needs bubblewrap ("bwrap" on PATH; Debian/Ubuntu: apt-get install bubblewrap, Fedora: dnf install bubblewrap); refusing to start without the sandbox',
    );
  }
  const sandbox: Sandbox = {
    bwrap,
    wrap: (command) => ({ file: bwrap, args: bwrapArgs(options, command) }),
  };
  const probeDir = mkdtempSync(join(tmpdir(), 'bridge-sandbox-'));
  try {
    const trueBinary = findOnPath('true') ?? '/bin/true';
    const { file, args } = sandbox.wrap({ file: trueBinary, args: [], cwd: probeDir, writable: [probeDir] });
    const failure = await new Promise<string | undefined>((resolve) => {
      execFile(file, args, { timeout: 10_000, ...(signal ? { signal } : {}) }, (error, _stdout, stderr) =>
        resolve(error ? String(stderr).trim() || error.message : undefined),
      );
    });
    if (failure !== undefined) {
      throw new BridgeError(
        'load_failed',
        `--sandbox: bubblewrap (${bwrap}) cannot create a sandbox here: ${failure}. It needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 or user.max_user_namespaces > 0; inside a container, one that allows them). Refusing to start rather than run commands unsandboxed.`,
      );
    }
  } finally {
    rmSync(probeDir, { recursive: true, force: true });
  }
  return sandbox;
}

/**
 * The directories a sandboxed call may write: the roots, narrowed to the client's MCP roots when
 * it gave some (a client root inside a root, or a root inside a client root).
 */
export function writableRoots(
  roots: readonly string[],
  clientRoots: readonly string[] | undefined,
): string[] {
  if (!clientRoots || clientRoots.length === 0) return [...roots];
  const writable = new Set<string>();
  for (const client of clientRoots) {
    for (const root of roots) {
      if (inside(client, root)) writable.add(client);
      else if (inside(root, client)) writable.add(root);
    }
  }
  // bwrap cannot bind a directory that does not exist (a client root may name one).
  return [...writable].filter((path) => existsSync(path));
}

/** `$XDG_RUNTIME_DIR`, else `/run/user/<uid>`, when it exists. */
function runtimeDir(): string | undefined {
  const dir = process.env.XDG_RUNTIME_DIR || (process.getuid ? `/run/user/${process.getuid()}` : '');
  return isAbsolute(dir) && dir !== '/' && existsSync(dir) ? dir : undefined;
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
