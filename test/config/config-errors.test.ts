// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are the config's literal ${VAR} syntax
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { tempDir, writeYaml } from './helpers.js';

// `bridge serve` on a config that must be refused: the exit code and stderr.
async function serveFails(config: unknown, env: Record<string, string> = {}) {
  await using dir = await tempDir();
  const file = dir.file('bridge.config.yaml');
  if (typeof config === 'string') await writeFile(file, config);
  else await writeYaml(file, config);
  try {
    await promisify(execFile)(process.execPath, [BRIDGE_BIN, 'serve', file], {
      env: { ...process.env, ...env },
      timeout: 20_000,
    });
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr.replaceAll(dir.path, '<dir>') };
  }
  throw new Error('the bridge accepted the config');
}

const pets = (options: Record<string, unknown>) => ({
  sources: [{ kind: 'openapi', namespace: 'pets', options: { spec: './petstore.yaml', ...options } }],
});

describe('config validation errors name the file, the place in it and the fix', () => {
  it('refuses a secret written inline, suggesting an environment variable', async () => {
    const { code, stderr } = await serveFails(pets({ headers: { Authorization: 'Bearer sk-live-1234' } }));
    expect(code).toBe(2);
    expect(stderr).toContain('<dir>/bridge.config.yaml:');
    expect(stderr).toContain('sources[0].options.headers.Authorization: a credential is written inline');
    expect(stderr).toContain('write "Bearer ${PETS_TOKEN}" instead');
    expect(stderr).not.toContain('sk-live-1234');
  });

  it('accepts the same header as a reference, and names a reference to an unset variable', async () => {
    const { stderr } = await serveFails(pets({ headers: { Authorization: 'Bearer ${PETS_TOKEN_UNSET}' } }));
    expect(stderr).toContain('the environment variable PETS_TOKEN_UNSET is not set');
    expect(stderr).toContain('Fix: set PETS_TOKEN_UNSET in the environment');
  });

  it('names an unknown kind and lists the known ones, with its line and column', async () => {
    const { code, stderr } = await serveFails('sources:\n  - kind: grpc\n    options: {}\n');
    expect(code).toBe(2);
    expect(stderr).toContain(
      'bridge.config.yaml:2:11 sources[0].kind: unknown source kind. Fix: use one of openapi, graphql, cli.',
    );
  });

  it('points at a misspelt key and at an adapter option of the wrong type', async () => {
    const { stderr } = await serveFails({
      sources: [{ kind: 'graphql', namespce: 'gh', options: { endpoint: 'http://127.0.0.1:9/graphql' } }],
    });
    expect(stderr).toMatch(
      /sources\[0\]\.namespce: Unrecognized key.*Fix: remove "namespce" or correct the spelling/,
    );
    const typed = await serveFails({
      sources: [{ kind: 'cli', options: { program: 'git', timeoutMs: 'soon' } }],
    });
    expect(typed.stderr).toMatch(
      /sources\[0\]\.options\.timeoutMs: must be a number\. Fix: give a number here/,
    );
  });

  it('names the entry whose spec path does not exist', async () => {
    const { code, stderr } = await serveFails(pets({ spec: './missing.yaml' }));
    // A file the config names that is not there is the config to fix: exit 2, like a bad config.
    expect(code).toBe(2);
    expect(stderr).toContain('<dir>/bridge.config.yaml sources[0]: ');
    expect(stderr).toContain('<dir>/missing.yaml');
  });

  it('reports every problem at once, in file order', async () => {
    const { stderr } = await serveFails({
      sources: [
        { kind: 'grpc', options: {} },
        {
          kind: 'graphql',
          options: { endpoint: 'http://127.0.0.1:9/graphql', headers: { Cookie: 'session=abc' } },
        },
      ],
    });
    expect(stderr).toContain('has 2 problems');
    expect(stderr.indexOf('sources[0].kind')).toBeLessThan(
      stderr.indexOf('sources[1].options.headers.Cookie'),
    );
  });

  it('gives the line of a YAML syntax error', async () => {
    const { stderr } = await serveFails('sources:\n  - kind: cli\n   options: x\n');
    expect(stderr).toMatch(/bridge\.config\.yaml:3:\d+: not valid YAML or JSON/);
  });
});
