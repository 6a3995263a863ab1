// The discovery cache keeps what discovery took from the overlay (its end-of-options marker): an
// edited overlay must be rediscovered, not served the marker of the old one. Real jq.

import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/index.js';
import { loadCli, tempDir } from './helpers.js';

const cache = tempDir('bridge-cli-cache-');
const previous = process.env.BRIDGE_CACHE_DIR;
process.env.BRIDGE_CACHE_DIR = cache.path;
afterAll(() => {
  process.env.BRIDGE_CACHE_DIR = previous;
  cache[Symbol.dispose]();
});

const context = { signal: new AbortController().signal } as unknown as ToolContext;

async function previewWith(dir: string, overlay: string): Promise<string | undefined> {
  writeFileSync(join(dir, 'jq.yaml'), overlay);
  await using cli = await loadCli({ program: 'jq', overlay: 'jq.yaml' }, dir);
  return cli.registry.get('jq')?.definition.preview?.({ operands: ['.'] }, context);
}

describe('the discovery cache and the overlay', () => {
  it("follows an edited overlay's endOfOptions instead of serving the cached one", async () => {
    using work = tempDir();
    expect(await previewWith(work.path, 'program: jq\nendOfOptions: null\n')).toMatch(/jq \.\s/);
    expect(readdirSync(join(cache.path, 'cli'))).toHaveLength(1);
    expect(await previewWith(work.path, 'program: jq\nendOfOptions: "--"\n')).toMatch(/jq -- \.\s/);
    // Back to the first overlay: its own entry is still there and still right.
    expect(await previewWith(work.path, 'program: jq\nendOfOptions: null\n')).toMatch(/jq \.\s/);
    expect(readdirSync(join(cache.path, 'cli'))).toHaveLength(2);
  });
});
