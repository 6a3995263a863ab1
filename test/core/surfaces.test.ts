// The two public surfaces, named once: what an adapter may import (src/index.ts) and what a host
// program embedding a bridge imports (src/embed.ts, "bridge/embed" in package.json exports).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as embed from '../../src/embed.js';
import * as index from '../../src/index.js';

describe('public surfaces', () => {
  it('keeps serving and shared stores out of the adapter contract', () => {
    expect(Object.keys(index)).not.toContain('serve');
    expect(Object.keys(index)).not.toContain('RedisTaskStore');
    expect(Object.keys(index)).toEqual(expect.arrayContaining(['pageOutput', 'invokeTool', 'ToolRegistry']));
  });

  it('offers a host program serve and both implementations of each store', () => {
    expect(Object.keys(embed).sort()).toEqual([
      'MemoryResourceStore',
      'MemoryTaskStore',
      'RedisResourceStore',
      'RedisTaskStore',
      'openStores',
      'parseListenAddress',
      'serve',
    ]);
  });

  it('is reachable as bridge/embed', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.exports).toEqual({ '.': './dist/src/index.js', './embed': './dist/src/embed.js' });
  });
});
