import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { distPath, startHttpBridge } from '../helpers/start-bridge.js';

const script = distPath('test/servers/auth-server.js');

/** Runs the server with `args` and returns its exit code and stderr (it must exit on its own). */
async function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [script, 'notes', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  return { code: code as number | null, stderr };
}

describe('authentication flags', () => {
  it('refuses to serve a non-loopback bind without an explicit --auth choice', async () => {
    const { code, stderr } = await run(['--http', '0.0.0.0:0']);
    expect(code).toBe(2);
    expect(stderr).toContain('--auth token');
    expect(stderr).toContain('--auth none');
  });

  it('takes only a 127.x address literal for loopback, not a host name that starts with 127.', async () => {
    // Such a name may resolve to any address: it needs an --auth choice like any other bind.
    const { code, stderr } = await run(['--http', '127.0.0.1.example.invalid:0']);
    expect(code).toBe(2);
    expect(stderr).toContain('--auth none');
  });

  it('needs --resource for JWTs on a wildcard bind, and an issuer', async () => {
    const wildcard = await run([
      '--http',
      '0.0.0.0:0',
      '--auth',
      'jwt',
      '--jwks-url',
      'https://as.example/jwks',
    ]);
    expect(wildcard.code).toBe(2);
    expect(wildcard.stderr).toContain('--resource');
    const noIssuer = await run(['--http', '127.0.0.1:0', '--jwks-url', 'https://as.example/jwks']);
    expect(noIssuer.stderr).toContain('--issuer');
    const nothing = await run(['--http', '127.0.0.1:0', '--auth', 'jwt']);
    expect(nothing.stderr).toContain('--issuer');
  });

  it('rejects inconsistent and malformed auth flags with a message naming the flag', async () => {
    const cases: Array<[string[], string]> = [
      [['--auth-tokens-env', 'T'], 'applies only to --http'],
      [['--http', '127.0.0.1:0', '--auth', 'none', '--auth-tokens-env', 'T'], 'no effect with --auth none'],
      [['--http', '127.0.0.1:0', '--auth', 'basic'], '--auth expects none, token or jwt'],
      [['--http', '127.0.0.1:0', '--auth', 'token'], 'at least one token'],
      [
        ['--http', '127.0.0.1:0', '--auth-tokens-env', 'UNSET_FOR_TEST'],
        'UNSET_FOR_TEST: the environment variable',
      ],
      [
        ['--http', '127.0.0.1:0', '--auth-tokens-env', 'T', '--jwks-url', 'https://a/j'],
        'does not apply to --auth token',
      ],
      [
        ['--http', '127.0.0.1:0', '--auth-tokens-env', 'T', '--scope-write', 'a b'],
        '--scope-write expects an OAuth scope',
      ],
      [
        ['--http', '127.0.0.1:0', '--auth-tokens-env', 'T', '--tool-scope', 'echo'],
        '--tool-scope expects TOOL=SCOPE',
      ],
      [
        ['--http', '127.0.0.1:0', '--auth-tokens-env', 'T', '--resource', 'mcp.example.com'],
        '--resource expects',
      ],
      [['--http', '127.0.0.1:0', '--auth-tokens-env', 'BAD'], 'a token may contain only'],
      [
        ['--http', '127.0.0.1:0', '--auth-tokens-env', 'T', '--jwt-type', 'JWT'],
        '--jwt-type does not apply to --auth token',
      ],
      [
        ['--http', '127.0.0.1:0', '--issuer', 'https://a/', '--jwt-type', 'at+jwt; q=1'],
        '--jwt-type (jwtTypes in a config file) expects the "typ" of a JWT, such as JWT or application/jwt ("" for a token without one), got "at+jwt; q=1"',
      ],
    ];
    // Each case is its own process; run them side by side.
    const outcomes = await Promise.all(
      cases.map(async ([args, message]) => ({
        args,
        message,
        ...(await run(args, { T: 'tok-0123456789', BAD: 'has"quote' })),
      })),
    );
    for (const { args, message, code, stderr } of outcomes) {
      expect({ args, code, stderr }).toMatchObject({ code: 2, stderr: expect.stringContaining(message) });
      expect(stderr).not.toContain('tok-0123456789');
    }
  });

  it('serves a wildcard bind without auth only when asked (--auth none), with a warning', async () => {
    const child = spawn(process.execPath, [script, 'notes', '--auth', 'none', '--http', '0.0.0.0:0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      await expect
        .poll(() => stderr, { timeout: 15_000 })
        .toMatch(/listening on http:\/\/0\.0\.0\.0:\d+\/mcp/);
      expect(stderr).toContain('without authentication');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('leaves loopback unauthenticated unless asked', async () => {
    await using bridge = await startHttpBridge({ script, args: ['notes'] });
    const response = await fetch(bridge.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    expect(response.status).toBe(200);
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource', bridge.url));
    expect(metadata.status).toBe(404);
  });
});
