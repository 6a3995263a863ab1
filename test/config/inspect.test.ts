import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/config/inspect-tools.js';
import { connect } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';
import { CONFIG_BIN, tempDir, writeYaml } from './helpers.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../fixtures/config/inspect/${name}`, import.meta.url));

// Runs the command to completion, whatever its exit code.
async function run(script: string, args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, ...args], {
      encoding: 'utf8',
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

interface Report {
  tools: Array<{
    name: string;
    title?: string;
    annotations: Record<string, boolean>;
    taskSupport: string;
    tokens: number;
    problems: string[];
    warnings: string[];
  }>;
  totalTokens: number;
  valid: boolean;
}

describe('bridge inspect', () => {
  it('prints the table a fixture config gives (set UPDATE_FIXTURES=1 to rewrite expected.txt)', async () => {
    const result = await run(BRIDGE_BIN, ['inspect', fixture('bridge.config.yaml')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    if (process.env.UPDATE_FIXTURES) await writeFile(fixture('expected.txt'), result.stdout);
    expect(result.stdout).toBe(await readFile(fixture('expected.txt'), 'utf8'));
  });

  it('prints JSON with --json: filters, overrides and token totals applied', async () => {
    const result = await run(BRIDGE_BIN, ['inspect', fixture('bridge.config.yaml'), '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.tools.map((tool) => tool.name)).toEqual([
      'library_author',
      'library_books',
      'pet',
      'pets_createPet',
      'pets_listPets',
    ]);
    const create = report.tools.find((tool) => tool.name === 'pets_createPet')!;
    expect(create).toMatchObject({ title: 'Add a pet', taskSupport: 'optional' });
    expect(create.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(report.totalTokens).toBe(report.tools.reduce((sum, tool) => sum + tool.tokens, 0));
    expect(report.tools.every((tool) => tool.tokens > 20)).toBe(true);
    expect(report.valid).toBe(true);
  });

  it('estimates the tokens of exactly the tools/list entries a client receives', async () => {
    const result = await run(BRIDGE_BIN, ['inspect', fixture('bridge.config.yaml'), '--json']);
    const report = JSON.parse(result.stdout) as Report;
    await using client = await connect('v1', 'stdio', {
      script: BRIDGE_BIN,
      args: ['serve', fixture('bridge.config.yaml'), '--no-watch'],
    });
    const { tools } = await client.listTools();
    // The titled tool carries its title once, at the top level (not copied into the annotations).
    const titled = tools.find((tool) => tool.name === 'pets_createPet');
    expect(titled?.title).toBe('Add a pet');
    expect(titled?.annotations).not.toHaveProperty('title');
    const served = Object.fromEntries(tools.map((tool) => [tool.name, estimateTokens(tool)]));
    expect(Object.fromEntries(report.tools.map((tool) => [tool.name, tool.tokens]))).toEqual(served);
  });

  it('inspects source arguments the way the shorthand command would serve them', async () => {
    const result = await run(BRIDGE_BIN, [
      'inspect',
      'openapi',
      fixture('petstore.yaml'),
      '--exclude',
      'listPets',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.tools.map((tool) => tool.name)).toEqual(['createPet', 'deletePet', 'showPetById']);
    expect(report.tools.find((tool) => tool.name === 'deletePet')?.annotations.destructiveHint).toBe(true);
  });

  it('exits 1 and says why when a tool is invalid', async () => {
    const result = await run(CONFIG_BIN, ['inspect', fixture('invalid.config.yaml')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('service_status');
    expect(result.stdout).not.toContain('internal_debug');
    expect(result.stdout).toMatch(
      /invalid ops_broken: inputSchema does not compile as JSON Schema 2020-12: .*minimum/,
    );
  });

  it('warns about a name two sources share, and serves the second under a suffix', async () => {
    await using dir = await tempDir();
    const spec = { kind: 'openapi', options: { spec: fixture('petstore.yaml') } };
    await writeYaml(dir.file('bridge.config.yaml'), { sources: [spec, spec] });
    const result = await run(BRIDGE_BIN, ['inspect', dir.file('bridge.config.yaml')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^listPets_2 /m);
    expect(result.stdout).toContain('warning listPets: "listPets" is offered by more than one source');
  });
});
