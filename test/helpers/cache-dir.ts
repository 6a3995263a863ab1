import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Vitest global setup: every bridge the tests start keeps its caches (CLI discovery, OpenAPI
// conversion) in a temporary directory of this run, never in the user's ~/.cache.
export default function setup(): () => void {
  if (process.env.BRIDGE_CACHE_DIR) return () => {};
  const dir = mkdtempSync(join(tmpdir(), 'bridge-test-cache-'));
  process.env.BRIDGE_CACHE_DIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
