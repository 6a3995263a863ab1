// An option that makes a program go on in the background outlives the call: wget's `-b` forks a
// download that the call's time limit no longer bounds (with a dangling `wget-log` planted, wget
// spun choosing a log name until the call's time limit), and the bridge's sweep cuts the work
// short. Such options are found in any help and not offered. Real wget and a fixture program
// behind the built bridge; checked on the process table, the root's files and the requests made.
import { once } from 'node:events';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OptionSpec } from '../../adapters/cli/cli-spec.js';
import { detaches } from '../../adapters/cli/infer-detaching.js';
import { clientText, git, makeRepo, serveCliForTests, tempDir } from '../cli/helpers.js';
import { processesUnder, snapshot } from './world.js';

const requests: string[] = [];
const server = createServer((request, response) => {
  requests.push(request.url ?? '');
  response.end('served\n');
});
let site = '';
beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

// A program whose --daemon and --detach start a process of their own session, as daemons do.
const bin = tempDir('bridge-daemon-bin-');
const program = join(bin.path, 'daemonish');
writeFileSync(
  program,
  `#!/bin/sh
case "$1" in --help|-h) printf 'Usage: daemonish [OPTIONS] FILE\\n\\nOptions:\\n  -D, --daemon    run as a daemon\\n  -d, --detach    go to the background once started\\n  -v, --verbose   say more\\n  -h, --help      show help\\n'; exit 0;; esac
case "$1" in --daemon|--detach) touch started; setsid sleep 1000 </dev/null >/dev/null 2>&1 & ;; esac
echo done
`,
);
chmodSync(program, 0o755);
afterAll(() => {
  server.close();
  bin[Symbol.dispose]();
});

describe('options that go on in the background after the call', () => {
  const wget = serveCliForTests('wget', 'v1', 'stdio');

  it('wget: --background is not offered, and a call naming it starts nothing', async () => {
    const before = snapshot(wget.work);
    const { tools } = await wget.client().listTools();
    const tool = tools.find((listed) => listed.name === 'wget') as (typeof tools)[number];
    const schema = tool.inputSchema as { properties: Record<string, unknown> };
    expect(schema.properties.background).toBeUndefined();
    expect(tool.description).toMatch(/Not offered for safety: [^\n]*--background/);
    const result = await wget.client().callTool('wget', { background: true, args: [`${site}/bg`] });
    expect(result.isError, clientText(result)).toBe(true);
    await expect.poll(() => processesUnder(wget.work), { timeout: 5_000 }).toEqual([]);
    expect(requests).not.toContain('/bg');
    expect(snapshot(wget.work)).toEqual(before);
    // A download in the foreground still runs.
    const kept = await wget.client().callTool('wget', { args: [`${site}/fg`] });
    expect(kept.isError, clientText(kept)).toBeFalsy();
    expect(requests).toContain('/fg');
  });

  const daemonish = serveCliForTests('daemonish', 'v2', 'http', {
    env: { PATH: `${bin.path}:${process.env.PATH}` },
  });

  it('any program: options whose help says they daemonize or go to the background are not offered', async () => {
    const { tools } = await daemonish.client().listTools();
    const tool = tools.find((listed) => listed.name === 'daemonish') as (typeof tools)[number];
    const properties = (tool.inputSchema as { properties: Record<string, unknown> }).properties;
    expect(properties.daemon).toBeUndefined();
    expect(properties.detach).toBeUndefined();
    expect(properties.verbose).toBeDefined();
    for (const option of ['daemon', 'detach']) {
      const result = await daemonish.client().callTool('daemonish', { [option]: true, args: ['x'] });
      expect(result.isError, clientText(result)).toBe(true);
    }
    expect(readdirSync(daemonish.work)).not.toContain('started');
    expect(processesUnder(daemonish.work)).toEqual([]);
  });

  // Two packs and gc.autoPackLimit=1: the next commit starts git's automatic gc.
  const repo = serveCliForTests('git', 'v1', 'stdio', {
    prepare: (root) => {
      const dir = join(root, 'repo');
      mkdirSync(dir);
      makeRepo(dir, 2);
      git(dir, 'repack', '-q');
      writeFileSync(join(dir, 'more.txt'), 'more\n');
      git(dir, 'add', 'more.txt');
      git(dir, 'commit', '-q', '-m', 'more');
      git(dir, 'repack', '-q');
      git(dir, 'config', 'gc.autoPackLimit', '1');
      writeFileSync(join(dir, 'last.txt'), 'last\n');
      git(dir, 'add', 'last.txt');
    },
  });

  it('git: the automatic gc a commit starts runs inside the call, not in the background', async () => {
    const packs = () => readdirSync(join(repo.work, 'repo', '.git', 'objects', 'pack'));
    expect(packs().filter((name) => name.endsWith('.pack'))).toHaveLength(2);
    const result = await repo
      .client()
      .callTool('git_commit', { cwd: join(repo.work, 'repo'), message: 'last' });
    expect(result.isError, clientText(result)).toBeFalsy();
    // Done when the call answered: one pack, no temporary one left by a gc stopped half way.
    expect(processesUnder(repo.work)).toEqual([]);
    expect(packs().filter((name) => name.endsWith('.pack'))).toHaveLength(1);
    expect(packs().filter((name) => name.startsWith('.tmp-'))).toEqual([]);
    expect(clientText(result)).not.toContain('in background');
  });

  it('reads the help: daemons and the background, not a detached HEAD or signature', () => {
    const option = (name: string, description: string): OptionSpec => ({
      name,
      flag: `--${name}`,
      kind: 'boolean',
      description,
    });
    expect(detaches(option('background', 'go to background after startup'))).toBe(true);
    expect(detaches(option('f', 'Requests ssh to go to background just before command execution'))).toBe(
      true,
    );
    expect(detaches(option('detach', 'Run container in background and print container ID'))).toBe(true);
    expect(detaches(option('detach', 'perform garbage collection in the background'))).toBe(true);
    expect(detaches(option('fork', 'daemonize after initialisation'))).toBe(true);
    expect(detaches(option('fork', 'fork the server process after binding'))).toBe(true);
    expect(detaches(option('d', 'start in detached mode'))).toBe(true);
    expect(detaches(option('spawn', 'spawn a worker that keeps running after exit'))).toBe(true);
    expect(detaches(option('no-fork', 'do not fork; stay in the foreground'))).toBe(false);
    expect(detaches(option('detach', 'detach HEAD at named commit'))).toBe(false);
    expect(detaches(option('detach-sign', 'make a detached signature'))).toBe(false);
    expect(detaches(option('host', 'Daemon socket to connect to'))).toBe(false);
  });
});
