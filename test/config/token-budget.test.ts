// A single operation can cost tens of thousands of tokens (a Kubernetes StatefulSet tool: ~31k).
// `bridge inspect` and the start-up log name such tools and say what to do; `inspect --json`
// carries the load warnings too.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { narrowingAdvice } from '../../src/config/token-budget.js';
import { BRIDGE_BIN, startHttpBridge } from '../helpers/start-bridge.js';
import { tempDir } from './helpers.js';

const SUGGESTION =
  "serve it with --tools dynamic (four meta-tools that load schemas on demand) or leave operations out with --include/--exclude (in a config: the same settings, or the source's include/exclude)";

async function run(args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BRIDGE_BIN, ...args], {
      encoding: 'utf8',
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// One operation with a 400-property body: ~20k tokens, like the largest real-world operations.
function hugeSpec() {
  const properties = Object.fromEntries(
    Array.from({ length: 400 }, (_, i) => [
      `field_${i}`,
      {
        type: 'string',
        description: `Field ${i} of the resource, as the API documents it: ${'a long description. '.repeat(8)}`,
      },
    ]),
  );
  return {
    openapi: '3.0.3',
    info: { title: 'Huge', version: '1' },
    paths: {
      '/things': {
        post: {
          operationId: 'createThing',
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties } } } },
          responses: { '200': { description: 'ok' } },
        },
        get: { operationId: 'listThings', responses: { '200': { description: 'ok' } } },
      },
    },
  };
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let spec: string;
beforeAll(async () => {
  dir = await tempDir();
  spec = dir.file('huge.json');
  await writeFile(spec, JSON.stringify(hugeSpec()));
});
afterAll(async () => {
  await dir?.[Symbol.asyncDispose]();
});

describe('tools above the token budget', () => {
  it('bridge inspect names them with a suggestion, in the table and in --json', async () => {
    const table = await run(['inspect', 'openapi', spec, '--tools', 'all']);
    expect(table.code).toBe(0);
    const line = table.stdout.split('\n').find((l) => l.startsWith('warning createThing: '));
    expect(line).toMatch(
      new RegExp(
        `^warning createThing: about [0-9,]+ tokens in tools/list, above the 10,000 a tool should cost: ${escapeRegExp(SUGGESTION)}$`,
      ),
    );
    expect(table.stdout).not.toContain('warning listThings');

    const json = await run(['inspect', 'openapi', spec, '--tools', 'all', '--json']);
    const report = JSON.parse(json.stdout) as {
      tools: Array<{ name: string; tokens: number; warnings: string[] }>;
      warnings: string[];
    };
    const huge = report.tools.find((tool) => tool.name === 'createThing');
    expect(huge?.tokens).toBeGreaterThan(10_000);
    expect(huge?.warnings).toEqual([
      `about ${huge?.tokens.toLocaleString('en-US')} tokens in tools/list, above the 10,000 a tool should cost: ${SUGGESTION}`,
    ]);
  });

  it('the start-up log names them', async () => {
    await using bridge = await startHttpBridge({
      script: BRIDGE_BIN,
      args: ['openapi', spec, '--tools', 'all', '--no-watch'],
    });
    // Measured right after start-up: wait for the line rather than for a time.
    const logged = await new Promise<string>((done) => {
      const check = () => {
        const line = bridge
          .stderr()
          .split('\n')
          .find((l) => l.includes('tool createThing is about'));
        if (line) done(line);
        else bridge.child.stderr?.once('data', check);
      };
      check();
    });
    expect(logged).toContain(`above the 10,000 a tool should cost: ${SUGGESTION}`);
    expect(bridge.stderr()).not.toContain('tool listThings is about');
  });
});

describe('the advice', () => {
  it("names the flags of the sources' own kinds, never another kind's", () => {
    expect(narrowingAdvice(['cli systemctl'])).toBe(
      "offer only the subcommands you name with --allow, or leave some out with --deny (in a config: the same settings, or the source's include/exclude)",
    );
    const graphql = narrowingAdvice(['graphql https://api.example/graphql']);
    expect(graphql).toContain('--operations DIR');
    expect(graphql).not.toContain('--tools dynamic');
    const mixed = narrowingAdvice(['openapi a.yaml', 'cli git', 'openapi b.yaml']);
    expect(mixed.split('; ')).toHaveLength(2);
    expect(mixed).toContain('--tools dynamic');
    expect(mixed).toContain('--allow');
  });
});

describe('bridge inspect --json', () => {
  it('includes the load warnings (a skipped operation)', async () => {
    const legacy = resolve('fixtures/openapi/legacy-dialect-3.1.yaml');
    const json = await run(['inspect', 'openapi', legacy, '--tools', 'all', '--json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { warnings: string[] };
    expect(report.warnings).toEqual([
      expect.stringMatching(/^skipped operation GET \/broken \(getBroken\) cannot be served: /),
    ]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
