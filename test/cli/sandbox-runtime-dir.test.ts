// The sandbox hides the user's runtime directory (session bus, agents' sockets) like /tmp, and
// /run too when the network is off.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareSandbox } from '../../adapters/cli/sandbox.js';

// Outside /tmp, which the sandbox hides anyway.
const runtime = { path: mkdtempSync(join(homedir(), '.bridge-runtime-')) };
const saved = process.env.XDG_RUNTIME_DIR;
afterAll(() => {
  if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
  else process.env.XDG_RUNTIME_DIR = saved;
  rmSync(runtime.path, { recursive: true, force: true });
});

let works = true;
try {
  execFileSync('bwrap', ['--ro-bind', '/', '/', 'true'], { stdio: 'ignore' });
} catch {
  works = false;
}

describe.skipIf(!works)('sandbox', () => {
  it("hides the runtime directory's sockets and files", async () => {
    writeFileSync(join(runtime.path, 'bus'), '');
    process.env.XDG_RUNTIME_DIR = runtime.path;
    const sandbox = await prepareSandbox({ network: true });
    const { file, args } = sandbox.wrap({
      file: '/bin/ls',
      args: ['-A', runtime.path],
      cwd: '/',
      writable: [],
    });
    expect(execFileSync(file, args, { encoding: 'utf8' })).toBe('');
    expect(execFileSync('/bin/ls', ['-A', runtime.path], { encoding: 'utf8' })).toBe('bus\n');
  });

  it('hides /run, where daemons keep their sockets, when the network is off', async (context) => {
    // A daemon's socket under /run (where this machine lets the test make one).
    const socket = `/run/bridge-test-${process.pid}.sock`;
    const server = createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socket, resolve);
      });
    } catch {
      context.skip();
      return;
    }
    try {
      const name = basename(socket);
      const listing = async (network: boolean) => {
        const { file, args } = (await prepareSandbox({ network })).wrap({
          file: '/bin/ls',
          args: ['-A', '/run'],
          cwd: '/',
          writable: [],
        });
        return execFileSync(file, args, { encoding: 'utf8' }).split('\n');
      };
      expect(await listing(true)).toContain(name);
      expect(await listing(false)).not.toContain(name);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
