import { writeFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { startUpstream } from '../openapi/helpers/upstream.js';
import { tempDir, writeYaml } from './helpers.js';

// Two sources without namespaces offer the same name: the second gets a suffix. A suffix must never
// land on a name the config gave another tool: whatever names a tool (a client's approvals,
// `--tool-scope`) would then reach another one, here a DELETE instead of a read.
const specOf = (path: string, method: string, operationId: string) => ({
  openapi: '3.0.3',
  info: { title: operationId, version: '1' },
  paths: { [path]: { [method]: { operationId, responses: { '200': { description: 'ok' } } } } },
});

/**
 * A temp directory with first.json and second.json (a DELETE each, both named `del`) and
 * reads.json (a GET named `slow`), and how a config names one of them as a source.
 */
async function specsDir(baseUrl: string) {
  const dir = await tempDir();
  await writeFile(dir.file('first.json'), JSON.stringify(specOf('/first', 'delete', 'del')));
  await writeFile(dir.file('second.json'), JSON.stringify(specOf('/second', 'delete', 'del')));
  await writeFile(dir.file('reads.json'), JSON.stringify(specOf('/reads', 'get', 'slow')));
  const source = (spec: string) => ({ kind: 'openapi', options: { spec, baseUrl, cache: false } });
  const serve = () =>
    connect('v2', 'stdio', {
      script: BRIDGE_BIN,
      args: ['serve', dir.file('bridge.config.yaml')],
      cwd: dir.path,
    });
  return Object.assign(dir, { source, serve });
}

describe('a tool the config names', () => {
  it('keeps that name when two other sources clash on its stem, and serve says who was renamed', async () => {
    await using upstream = await startUpstream();
    await using dir = await specsDir(upstream.url);
    const { source } = dir;
    await writeYaml(dir.file('bridge.config.yaml'), {
      sources: [
        source('./first.json'),
        source('./second.json'),
        { ...source('./reads.json'), tools: { slow: { name: 'del_2' } } },
      ],
    });
    await using client = await dir.serve();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['del', 'del_2', 'del_3']);
    expect(tools.find((tool) => tool.name === 'del_2')?.annotations).toMatchObject({ readOnlyHint: true });

    await client.callTool('del_2', {});
    expect(upstream.requests.map(({ method, url }) => `${method} ${url}`)).toEqual(['GET /v1/reads']);
    await client.callTool('del_3', {});
    expect(upstream.requests.at(-1)).toMatchObject({ method: 'DELETE', url: '/v1/second' });
    expect(client.stderr()).toContain(
      `1 tool served under another name, theirs being taken by another tool (give the sources namespaces): "del" of openapi ./second.json as "del_3"`,
    );
  });

  it("wins over an adapter's name it clashes with, which gets the suffix", async () => {
    await using upstream = await startUpstream();
    await using dir = await specsDir(upstream.url);
    const { source } = dir;
    await writeYaml(dir.file('bridge.config.yaml'), {
      sources: [source('./first.json'), { ...source('./reads.json'), tools: { slow: { name: 'del' } } }],
    });
    await using client = await dir.serve();
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['del', 'del_2']);
    await client.callTool('del', {});
    expect(upstream.requests.map(({ method, url }) => `${method} ${url}`)).toEqual(['GET /v1/reads']);
    expect(client.stderr()).toContain('"del" of openapi ./first.json as "del_2"');
  });

  it('warns on a reload that makes a clash', async () => {
    await using dir = await specsDir('http://127.0.0.1:9');
    const { source } = dir;
    await writeYaml(dir.file('bridge.config.yaml'), { sources: [source('./first.json')] });
    await using client = await dir.serve();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['del']);
    expect(client.stderr()).not.toContain('served under another name');
    await writeYaml(dir.file('bridge.config.yaml'), {
      sources: [source('./first.json'), source('./second.json')],
    });
    await vi.waitFor(() => expect(client.stderr()).toContain('reloaded: 2 tools'), { timeout: 10_000 });
    expect(client.stderr()).toContain(
      '1 tool served under another name, theirs being taken by another tool (give the sources namespaces): "del" of openapi ./second.json as "del_2"',
    );
  });
});
