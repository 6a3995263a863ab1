// The sandbox hides the user's runtime directory (session bus, agents' sockets) like /tmp.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
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
});
