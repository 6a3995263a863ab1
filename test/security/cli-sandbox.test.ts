// --sandbox: what the OS sandbox stops that argument checks cannot (a repository's hooks and
// config that run programs), the network switch, and the refusal to start without a sandbox.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FAKE_CLI, git, loadCli, makeRepo, tempDir } from '../cli/helpers.js';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

const cache = tempDir('bridge-cli-cache-');
const work = tempDir('bridge-sandbox-');
// Outside every root and outside /tmp (which the sandbox replaces with its own): the home directory.
const outside = mkdtempSync(join(homedir(), '.bridge-sandbox-test-'));
afterAll(() => {
  work[Symbol.dispose]();
  cache[Symbol.dispose]();
  rmSync(outside, { recursive: true, force: true });
});

// A repository whose own config and hooks run programs: nothing in the call's arguments says so.
const repo = join(work.path, 'repo');
mkdirSync(repo);
makeRepo(repo);
const hook = (name: string) => {
  const path = join(work.path, `${name}.sh`);
  writeFileSync(
    path,
    `#!/bin/sh\necho ran > "${join(work.path, `${name}-ran`)}"\necho pwned > "${join(outside, name)}" 2>/dev/null\nexit 0\n`,
  );
  chmodSync(path, 0o755);
  return path;
};
git(repo, 'config', 'core.fsmonitor', hook('fsmonitor'));
git(repo, 'config', 'core.hooksPath', join(work.path, 'hooks'));
mkdirSync(join(work.path, 'hooks'));
writeFileSync(join(work.path, 'hooks', 'post-commit'), `#!/bin/sh\nexec "${hook('post-commit')}"\n`);
chmodSync(join(work.path, 'hooks', 'post-commit'), 0o755);

function bridge(extra: string[]) {
  return {
    script: BRIDGE_BIN,
    args: ['cli', 'git', '--root', work.path, '--allow', 'status,commit,ls-remote', '--no-watch', ...extra],
    env: { BRIDGE_CACHE_DIR: cache.path },
    cwd: cache.path,
  };
}

const runs = [
  {
    name: 'the fsmonitor of the repository config (git status)',
    tool: 'git_status',
    args: {},
    marker: 'fsmonitor',
  },
  {
    name: 'a post-commit hook (git commit)',
    tool: 'git_commit',
    args: { all: true, message: ['hooked'] },
    marker: 'post-commit',
  },
];

describe.each([
  { kind: 'v1' as const, wire: 'stdio' as const },
  { kind: 'v2' as const, wire: 'http' as const },
])('--sandbox with the $kind client over $wire', ({ kind, wire }) => {
  it.each(runs)('confines what the repository runs: $name', async ({ tool, args, marker }) => {
    rmSync(join(work.path, `${marker}-ran`), { force: true });
    writeFileSync(join(repo, 'file.txt'), `changed for ${kind} ${marker}\n`);
    await using client = await connect(kind, wire, bridge(['--sandbox']));
    const result = await client.callTool(tool, { cwd: repo, ...args });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    // The program ran (it could write inside the root) but could not write outside it.
    expect(existsSync(join(work.path, `${marker}-ran`))).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('--sandbox with client roots', () => {
  it.each([
    { kind: 'v1' as const, wire: 'stdio' as const },
    { kind: 'v2' as const, wire: 'http' as const },
  ])('writes only inside the client roots ($kind over $wire)', async ({ kind, wire }) => {
    rmSync(join(work.path, 'fsmonitor-ran'), { force: true });
    await using client = await connect(kind, wire, bridge(['--sandbox']), {
      capabilities: { roots: {} },
      answer: async () => ({ roots: [{ uri: pathToFileURL(repo).href, name: 'repo' }] }),
    });
    const result = await client.callTool('git_status', { cwd: repo });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    // The hook ran but its write beside the repository (inside --root, outside the client's root) failed.
    expect(existsSync(join(work.path, 'fsmonitor-ran'))).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('discovery with --sandbox', () => {
  it("reads the program's help inside the sandbox too: a write it makes then lands nowhere", async () => {
    const marker = join(outside, 'discovery');
    process.env.FAKE_CLI_HELP_MARKER = marker;
    try {
      {
        await using cli = await loadCli(
          { program: FAKE_CLI, cache: false, sandbox: true, probeTimeoutMs: 1_500 },
          work.path,
        );
        expect(cli.registry.get('fake_cli_echo')).toBeDefined();
        expect(existsSync(marker)).toBe(false);
      }
      // The control: without --sandbox the same help run writes outside.
      await using bare = await loadCli({ program: FAKE_CLI, cache: false, probeTimeoutMs: 1_500 }, work.path);
      expect(bare.registry.get('fake_cli_echo')).toBeDefined();
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);
    } finally {
      delete process.env.FAKE_CLI_HELP_MARKER;
    }
  });
});

describe('without --sandbox (what argument checks cannot stop)', () => {
  it('the same fsmonitor writes outside the roots', async () => {
    await using client = await connect('v1', 'stdio', bridge([]));
    await client.callTool('git_status', { cwd: repo });
    expect(readdirSync(outside)).toContain('fsmonitor');
    rmSync(join(outside, 'fsmonitor'));
  });
});

describe('--sandbox-network', () => {
  it('off cuts the network: the server gets nothing; on reaches it', async () => {
    const seen: string[] = [];
    const server = createServer((request, response) => {
      seen.push(request.url ?? '');
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const url = `http://127.0.0.1:${port}/repo.git`;
      {
        await using client = await connect('v1', 'stdio', bridge(['--sandbox-network', 'off']));
        const result = await client.callTool('git_ls_remote', { cwd: repo, args: [url] });
        expect(result.isError).toBe(true);
        expect(seen).toEqual([]);
      }
      {
        // The same from a config file: `sandbox: {network: false}` on the cli source.
        const config = join(work.path, 'bridge.config.yaml');
        writeFileSync(
          config,
          `sources:\n  - kind: cli\n    options:\n      program: git\n      roots: [${work.path}]\n      allow: [ls-remote]\n      sandbox: { network: false }\n`,
        );
        const command = {
          script: BRIDGE_BIN,
          args: ['serve', config, '--no-watch'],
          env: { BRIDGE_CACHE_DIR: cache.path },
          cwd: cache.path,
        };
        await using client = await connect('v2', 'http', command);
        const result = await client.callTool('git_ls_remote', { cwd: repo, args: [url] });
        expect(result.isError).toBe(true);
        expect(seen).toEqual([]);
      }
      {
        await using client = await connect('v1', 'stdio', bridge(['--sandbox-network', 'on']));
        await client.callTool('git_ls_remote', { cwd: repo, args: [url] });
        expect(seen.length).toBeGreaterThan(0);
      }
    } finally {
      server.close();
    }
  });
});

/** Runs the bridge to its exit: code and stderr. */
function runBridge(args: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BRIDGE_BIN, ...args],
      { env, cwd: cache.path, timeout: 30_000 },
      (error, _o, stderr) =>
        resolve({
          code: typeof error?.code === 'number' ? error.code : error ? 1 : 0,
          stderr: String(stderr),
        }),
    );
  });
}

describe('a sandbox that cannot run', () => {
  const gitBinary = '/usr/bin/git';
  const start = ['cli', gitBinary, '--root', work.path, '--sandbox', '--no-watch'];

  it('without bubblewrap: the bridge does not start, and says what to install', async () => {
    const empty = join(work.path, 'empty-path');
    mkdirSync(empty, { recursive: true });
    const { code, stderr } = await runBridge(start, {
      PATH: empty,
      BRIDGE_CACHE_DIR: cache.path,
      HOME: homedir(),
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain('--sandbox needs bubblewrap');
    expect(stderr).toContain('refusing to start without the sandbox');
  });

  it('without user namespaces: the bridge does not start, and says why', async () => {
    const bin = join(work.path, 'fake-bwrap');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'bwrap'),
      '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n',
    );
    chmodSync(join(bin, 'bwrap'), 0o755);
    const { code, stderr } = await runBridge(start, {
      PATH: `${bin}:/usr/bin:/bin`,
      BRIDGE_CACHE_DIR: cache.path,
      HOME: homedir(),
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain('cannot create a sandbox here: bwrap: No permissions to creating new namespace');
    expect(stderr).toContain('Refusing to start rather than run commands unsandboxed');
  });
});
