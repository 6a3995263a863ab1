import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withSteadyYoungGeneration } from '../../adapters/openapi/steady-young-generation.js';
import { distPath } from '../helpers/start-bridge.js';

// V8's own figures, not timings, read in a fresh Node process (a test worker's heap has a history):
// the young generation's size before, during and after a load that keeps everything it allocates,
// like a spec being parsed and converted (what makes V8 grow it).
const probe = (flags: string[], growFirst: boolean) => `
const { getHeapSpaceStatistics } = await import('node:v8');
const { withSteadyYoungGeneration } = await import(${JSON.stringify(pathToFileURL(distPath('adapters/openapi/steady-young-generation.js')).href)});
const young = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
const kept = [];
const allocate = () => { for (let i = 0; i < 400000; i++) kept.push({ i, text: 'item ' + i }); };
const before = young();
let held;
const during = await withSteadyYoungGeneration(async (steady) => {
  if (${growFirst}) {
    allocate();
    await new Promise((resolve) => setImmediate(resolve));
  }
  held = young();
  steady();
  allocate();
  await new Promise((resolve) => setImmediate(resolve));
  allocate();
  return young();
});
allocate();
allocate();
process.stdout.write(JSON.stringify({ before, held, during, after: young(), flags: ${JSON.stringify(flags)} }));`;

function sizes(
  flags: string[] = [],
  growFirst = false,
): { before: number; held: number; during: number; after: number } {
  const out = execFileSync(
    process.execPath,
    [...flags, '--input-type=module', '-e', probe(flags, growFirst)],
    {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    },
  );
  return JSON.parse(out);
}

const MiB = 1024 * 1024;

describe('the young generation while a spec loads', () => {
  it('does not grow during the load, and grows again after it', () => {
    const { before, during, after } = sizes();
    expect(during).toBeLessThanOrEqual(Math.max(2 * before, 2 * MiB));
    expect(after).toBeGreaterThanOrEqual(8 * during);
  });

  it('grows until the load says its parsing begins (steady), and is held from there', () => {
    const { before, held, during } = sizes([], true);
    expect(held).toBeGreaterThanOrEqual(4 * before);
    expect(during).toBeLessThanOrEqual(2 * held);
  });

  it('is left to whoever chose its size when starting Node', () => {
    const { during } = sizes(['--max-semi-space-size=8']);
    expect(during).toBeGreaterThan(2 * MiB);
  });

  it('gives the load its result or its error', async () => {
    await expect(withSteadyYoungGeneration(async () => 'tools')).resolves.toBe('tools');
    await expect(
      withSteadyYoungGeneration(async () => {
        throw new Error('bad spec');
      }),
    ).rejects.toThrow('bad spec');
  });
});
