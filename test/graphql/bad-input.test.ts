import { once } from 'node:events';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGraphqlSource, graphqlCommand } from '../../adapters/graphql/index.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';
import { startGraphqlServer } from './helpers/graphql-server.js';
import { firstText, loadTools } from './helpers/in-process.js';
import { runBridge } from './helpers/run-bridge.js';
import { FIXTURES, SHOP_SDL_PATH, shopSchema } from './helpers/shop-schema.js';

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

describe('bridge graphql refuses bad input with a clear message', () => {
  it('an unreachable endpoint: names it and the cause, suggests --schema', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/graphql`;
    const { code, stderr } = await runBridge([url]);
    expect(code).toBe(1);
    expect(stderr).toContain(`could not reach the GraphQL endpoint ${url}`);
    expect(stderr).toContain('ECONNREFUSED');
    expect(stderr).toContain('--schema');
  });

  it('introspection disabled without --schema: says so and what to do', async () => {
    await using server = await startGraphqlServer(shopSchema(), { introspection: false });
    const { code, stderr } = await runBridge([server.url]);
    expect(code).toBe(1);
    expect(stderr).toContain(`the GraphQL endpoint ${server.url} did not answer introspection`);
    expect(stderr).toContain('GraphQL introspection has been disabled');
    expect(stderr).toContain('pass --schema FILE');
  });

  it('introspection refused for lack of credentials: quotes the answer and asks for --header', async () => {
    await using server = await startGraphqlServer(shopSchema(), {
      raw: { status: 401, body: '{"message":"Bad credentials"}' },
    });
    const { code, stderr } = await runBridge([server.url]);
    expect(code).toBe(1);
    expect(stderr).toContain('HTTP 401: {"message":"Bad credentials"}');
    expect(stderr).toContain('pass credentials with --header');
  });

  it('an invalid schema file, a JSON file that is no introspection, a missing file: each named', async () => {
    const invalid = await runBridge([
      'http://127.0.0.1:9/graphql',
      '--schema',
      join(FIXTURES, 'invalid.graphql'),
    ]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(
      'invalid.graphql is neither GraphQL SDL nor introspection JSON: Syntax Error',
    );
    const notIntrospection = await runBridge([
      'http://127.0.0.1:9/graphql',
      '--schema',
      join(FIXTURES, 'not-introspection.json'),
    ]);
    expect(notIntrospection.code).toBe(2);
    expect(notIntrospection.stderr).toContain('not-introspection.json is not an introspection result');
    const missing = await runBridge([
      'http://127.0.0.1:9/graphql',
      '--schema',
      join(FIXTURES, 'nope.graphql'),
    ]);
    expect(missing.code).toBe(2);
    const nope = join(FIXTURES, 'nope.graphql');
    expect(missing.stderr).toBe(
      `bridge graphql: graphql http://127.0.0.1:9/graphql: cannot read the schema file ${nope}: no such file\n`,
    );
  });

  it('bad flags: exit 2 naming the flag', async () => {
    const mutations = await runBridge(['http://127.0.0.1:9/graphql', '--mutations', 'some']);
    expect(mutations.code).toBe(2);
    expect(mutations.stderr).toBe('bridge graphql: --mutations must be one of none, all (got "some")\n');
    const noUrl = await runBridge([]);
    expect(noUrl.stderr).toContain('bridge graphql expects the endpoint URL');
    const header = await runBridge(['http://127.0.0.1:9/graphql', '--header', 'no colon here']);
    expect(header.stderr).toContain("--header expects 'Name: value'");
    const scalar = await runBridge(['http://127.0.0.1:9/graphql', '--scalar', 'DateTime']);
    expect(scalar.stderr).toContain('--scalar expects Name=TYPE');
    const depth = await runBridge(['http://127.0.0.1:9/graphql', '--depth', 'deep']);
    expect(depth.stderr).toBe('bridge graphql: --depth expects an integer, got "deep"\n');
    const deeper = await runBridge(['http://127.0.0.1:9/graphql', '--depth', '11']);
    expect(deeper.code).toBe(2);
    expect(deeper.stderr).toBe('bridge graphql: --depth must be at most 10 (got 11)\n');
    // The same limit whether the time limit comes from a flag or a config file.
    const timeout = await runBridge(['http://127.0.0.1:9/graphql', '--timeout', '3600001']);
    expect(timeout.stderr).toBe('bridge graphql: --timeout must be at most 3600000 (got 3600001)\n');
    expect(
      graphqlCommand.configSchema.safeParse({ endpoint: 'http://127.0.0.1:9/graphql', timeout: 3_600_001 })
        .success,
    ).toBe(false);
    const url = await runBridge(['ftp://example.com/graphql']);
    expect(url.stderr).toContain('must be an http or https URL');
  });

  it('a --header naming an unset environment variable: exit 2 naming the header and the variable', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the flag's own ${VAR} syntax
    const unset = '${BRIDGE_SURELY_UNSET_VAR}';
    const result = await runBridge([
      'http://127.0.0.1:9/graphql',
      '--header',
      `Authorization: Bearer ${unset}`,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `bridge graphql: header Authorization uses ${unset}, which is not set in the environment\n`,
    );
  });

  it('a flawed schema (root named QueryRoot, a type defined twice) is served with warnings', async () => {
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['graphql', 'http://127.0.0.1:9/graphql', '--schema', join(FIXTURES, 'flawed.graphql')],
    });
    const stderr = bridge.stderr();
    expect(stderr).toContain('"Item" is defined more than once; keeping the first definition');
    expect(stderr).toContain('using "QueryRoot" as the query root and "mutation_root" as the mutation root');
  });
});

describe('upstream failures at call time become isError results naming the cause', () => {
  it('the endpoint went away, answers non-GraphQL HTTP 502, or is too slow', async () => {
    const gone = await loadTools(
      createGraphqlSource(
        { endpoint: `http://127.0.0.1:${await closedPort()}/graphql`, schema: SHOP_SDL_PATH },
        '/',
      ),
    );
    const refused = await gone.call('serverTime');
    expect(refused.isError).toBe(true);
    expect(firstText(refused)).toMatch(
      /serverTime failed: could not reach the GraphQL endpoint .*ECONNREFUSED/,
    );

    await using broken = await startGraphqlServer(shopSchema(), {
      raw: { status: 502, body: 'Bad Gateway' },
    });
    const proxy = await loadTools(createGraphqlSource({ endpoint: broken.url, schema: SHOP_SDL_PATH }, '/'));
    const bad = await proxy.call('serverTime');
    expect(bad.isError).toBe(true);
    expect(firstText(bad)).toContain(
      'answered HTTP 502 with a body that is not a GraphQL response: Bad Gateway',
    );

    await using slow = await startGraphqlServer(shopSchema(), { delayMs: 2_000 });
    const impatient = await loadTools(
      createGraphqlSource({ endpoint: slow.url, schema: SHOP_SDL_PATH, timeout: 200 }, '/'),
    );
    const late = await impatient.call('serverTime');
    expect(late.isError).toBe(true);
    expect(firstText(late)).toContain('did not answer within 200 ms (raise --timeout)');
  });
});

describe('an operations directory far larger than any set of operations', () => {
  it('refuses more than 10,000 .graphql files, naming the directory and the count', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-ops-'));
    try {
      for (let at = 0; at <= 10_000; at++) writeFileSync(join(dir, `q${at}.graphql`), `query Q${at} { a }\n`);
      const { code, stderr } = await runBridge([
        'http://127.0.0.1:9/graphql',
        '--schema',
        SHOP_SDL_PATH,
        '--operations',
        dir,
      ]);
      expect(code).toBe(2);
      expect(stderr).toContain(
        `the operations directory ${dir} holds 10,001 .graphql files, more than the 10,000 the bridge reads`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an operations directory with links in it', () => {
  it('reads only the regular files it holds: a linked file is not read, nor a linked directory walked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-ops-'));
    const outside = mkdtempSync(join(tmpdir(), 'bridge-outside-'));
    try {
      writeFileSync(join(dir, 'own.graphql'), 'query Own { products(first: 1) { nodes { id } } }\n');
      writeFileSync(
        join(outside, 'linked.graphql'),
        'query Linked { products(first: 1) { nodes { id } } }\n',
      );
      symlinkSync(join(outside, 'linked.graphql'), join(dir, 'linked.graphql'));
      symlinkSync(outside, join(dir, 'more.graphql'));
      const { registry, warnings } = await loadTools(
        createGraphqlSource(
          { endpoint: 'http://127.0.0.1:9/graphql', schema: SHOP_SDL_PATH, operations: dir },
          '/',
        ),
      );
      const names = registry.tools.map((tool) => tool.name);
      expect(names).toContain('Own');
      expect(names).not.toContain('Linked');
      expect(warnings.join('\n')).not.toContain('not a regular file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
