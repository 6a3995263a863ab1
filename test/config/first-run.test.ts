// What a new user meets in the first minutes: the transport flag over a config file, the iproute2
// name clash, and the exact message and exit code of each mistake the README warns about.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseListenAddress, serve } from '../../src/embed.js';
import { MemoryResourceStore, silentLogger } from '../../src/index.js';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN, distPath, startHttpBridge } from '../helpers/start-bridge.js';
import { echoTools } from '../servers/echo-server.js';
import { tempDir, writeYaml } from './helpers.js';

const PETSTORE = resolve('fixtures/config/inspect/petstore.yaml');

/** Runs the bridge to its exit; these commands all fail (or finish) before serving. */
async function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BRIDGE_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir?.[Symbol.asyncDispose]();
});

describe('--stdio over a config that says transport: http', () => {
  it.each(['v1', 'v2'] as const)('serves the config on stdio to a real %s client', async (kind) => {
    const config = dir.file(`http-${kind}.config.yaml`);
    // Port 1 cannot be bound by a test: if the config's transport won, the server would fail.
    await writeYaml(config, {
      server: { transport: 'http', port: 1 },
      sources: [{ kind: 'openapi', options: { spec: PETSTORE } }],
    });
    await using client = await connect(kind, 'stdio', {
      script: BRIDGE_BIN,
      args: ['serve', config, '--stdio', '--no-watch'],
    });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('createPet');
    expect(client.stderr()).not.toContain('listening');
  });

  it('refuses --stdio together with --http (exit 2)', async () => {
    const result = await run(['openapi', PETSTORE, '--stdio', '--http', '127.0.0.1:0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'bridge openapi: --stdio and --http cannot be used together; pick one transport\n',
    );
  });
});

describe('the iproute2 "bridge" on the same PATH', () => {
  it('installs a second, unambiguous name that every client configuration in the README uses', async () => {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as {
      name: string;
      bin: Record<string, string>;
    };
    expect(pkg.name).not.toBe('bridge');
    expect(pkg.bin).toEqual({ bridge: 'dist/bin/bridge.js', 'mcp-bridge': 'dist/bin/bridge.js' });
    const readme = await readFile('README.md', 'utf8');
    const commands = [...readme.matchAll(/"command": "([^"]+)"/g)].map((match) => match[1]);
    expect(commands.length).toBeGreaterThan(0);
    expect(new Set(commands)).toEqual(new Set(['mcp-bridge']));
    const added = [...readme.matchAll(/claude mcp add (?:\\\n|[^\n])*/g)].map((match) => match[0]);
    expect(added.length).toBeGreaterThan(0);
    for (const line of added) expect(line).toMatch(/ -- \\?\s*mcp-bridge /);
  });

  it.each([[['link', 'show']], [['-s', 'fdb', 'show']], [['-n', 'ns1', 'vlan']], [['-d']]])(
    'bridge %j gets a hint and exit 2',
    async (args) => {
      const result = await run(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `bridge: "${args.join(' ')}" looks like a command for iproute2's bridge (the Linux network bridge tool).
This "bridge" serves OpenAPI, GraphQL and command-line programs as MCP servers (also installed as
"mcp-bridge"). For the network tool, run it by its path: /sbin/bridge ${args.join(' ')}
(or /usr/sbin/bridge). Run "bridge --help" for this program's commands.
`,
      );
    },
  );

  it('an unknown word that is not iproute2 gets the usual usage error', async () => {
    const result = await run(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^bridge: unknown command "frobnicate"\.\n\nUsage: bridge/);
  });
});

describe('errors of the first run: message and exit code', () => {
  it('a missing spec file: said once, exit 2', async () => {
    const missing = dir.file('missing.yaml');
    const result = await run(['openapi', missing]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `bridge openapi: openapi ${missing}: cannot read the OpenAPI spec ${missing}: no such file\n`,
    );
  });

  // /dev/zero grew the read to gigabytes; a directory or a device is no spec.
  it('a device given as a spec: not a regular file, exit 2', async () => {
    const result = await run(['openapi', '/dev/zero']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'bridge openapi: openapi /dev/zero: cannot read the OpenAPI spec /dev/zero: it is not a regular file or a pipe (a device, a socket or a directory)\n',
    );
  });

  it('an HTML page given as a spec: exit 2 for a file', async () => {
    const page = dir.file('docs.html');
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(page, '<!DOCTYPE html>\n<html><head><title>API docs</title></head></html>\n'),
    );
    const result = await run(['openapi', page]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `bridge openapi: openapi ${page}: ${page} is an HTML page, not an OpenAPI document: give the URL or path of the JSON or YAML spec itself (Swagger UI pages name it, often …/openapi.json)\n`,
    );
  });

  it('an HTML page at a spec URL, and bridge graphql at a web server: exit 1, no HTML dumped', async () => {
    const html = '<!doctype html><html><head><title>Welcome</title></head><body>hello</body></html>';
    const server = createServer((req, res) =>
      req.url === '/moved'
        ? res.writeHead(302, { location: '/docs' }).end()
        : res.writeHead(200, { 'content-type': 'text/html' }).end(html),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    try {
      const specUrl = `http://127.0.0.1:${port}/docs`;
      const spec = await run(['openapi', specUrl]);
      expect(spec.code).toBe(1);
      expect(spec.stderr).toBe(
        `bridge openapi: openapi ${specUrl}: ${specUrl} is an HTML page, not an OpenAPI document: give the URL or path of the JSON or YAML spec itself (Swagger UI pages name it, often …/openapi.json)\n`,
      );
      // A redirect is followed to what it points at (here the same HTML page).
      const movedUrl = `http://127.0.0.1:${port}/moved`;
      const moved = await run(['openapi', movedUrl]);
      expect(moved.code).toBe(1);
      expect(moved.stderr).toContain(`${movedUrl} is an HTML page, not an OpenAPI document`);
      const endpoint = `http://127.0.0.1:${port}/`;
      const graphql = await run(['graphql', endpoint]);
      expect(graphql.code).toBe(1);
      expect(graphql.stderr).toBe(
        `bridge graphql: graphql ${endpoint}: the GraphQL endpoint ${endpoint} answered HTTP 200 with an HTML page ("Welcome"), not a GraphQL response; check that the URL is the GraphQL endpoint itself (often …/graphql), or pass --schema FILE\n`,
      );
    } finally {
      server.close();
    }
  });

  it('an empty credential after shell expansion: a warning naming the header', async () => {
    const result = await run(['inspect', 'openapi', PETSTORE, '--header', 'Authorization: Bearer ']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `header authorization is "Bearer" with no credential after it; was the variable empty when the shell expanded it? Write '\${VAR}' in single quotes to let the bridge read it (it fails when VAR is not set)`,
    );
  });

  it('usage and config errors exit 2, runtime failures 1', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['openapi', PETSTORE, '--no-such-flag'])).code).toBe(2);
    expect((await run(['serve', dir.file('nothere.yaml')])).code).toBe(2);
    const bad = dir.file('bad.config.yaml');
    await writeYaml(bad, { sources: [{ kind: 'openapi', options: { spec: PETSTORE, retries: 50 } }] });
    expect((await run(['serve', bad])).code).toBe(2);
    // Nothing listens on port 9 of the loopback: the endpoint cannot be reached at run time.
    expect((await run(['graphql', 'http://127.0.0.1:9/graphql'])).code).toBe(1);
  });
});

describe('pages of a long output', () => {
  it('belong to the session that made them: another session is told why it cannot read them', async () => {
    await using bridge = await startHttpBridge({ script: distPath('test/servers/echo-server.js'), args: [] });
    const first = new Client({ name: 'first', version: '1.0.0' });
    const second = new Client({ name: 'second', version: '1.0.0' });
    await first.connect(new StreamableHTTPClientTransport(bridge.url));
    await second.connect(new StreamableHTTPClientTransport(bridge.url));
    try {
      const result = await first.callTool({ name: 'long', arguments: {} });
      const link = (result.content as Array<{ type: string; uri?: string }>).find(
        (block) => block.type === 'resource_link',
      );
      const uri = String(link?.uri);
      expect(JSON.stringify((await first.readResource({ uri })).contents[0])).toContain('line');
      await expect(second.readResource({ uri })).rejects.toThrow(
        `Resource not found: ${uri}. Pages of a long output belong to the session that created them (with authentication, to its user) and expire 30 minutes after they were written (or earlier when memory runs short); call the tool again in this session for fresh pages.`,
      );
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('say how long the store keeps them when it keeps them for another time', async () => {
    let now = 0;
    const bridge = await serve({
      log: silentLogger,
      transport: { kind: 'http', address: parseListenAddress('127.0.0.1:0') },
      sources: [{ label: 'echo', load: async () => echoTools }],
      resourceStore: new MemoryResourceStore({ ttlMs: 90_000, now: () => now }),
    });
    const client = new Client({ name: 'ttl', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(bridge.url as string)));
    try {
      const result = await client.callTool({ name: 'long', arguments: {} });
      const uri = String((result.content as Array<{ uri?: string }>).find((block) => block.uri)?.uri);
      now += 91_000; // past the page's lifetime: the store has dropped it
      await expect(client.readResource({ uri })).rejects.toThrow('expire 90 seconds after they were written');
    } finally {
      await client.close();
      await bridge.close();
    }
  });
});
