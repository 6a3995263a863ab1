import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where adapters keep what they can reuse across starts (CLI discovery, OpenAPI conversion), each in
 * a subdirectory of its own: `$BRIDGE_CACHE_DIR`, else `$XDG_CACHE_HOME/bridge`, else `~/.cache/bridge`.
 */
export function cacheDir(): string {
  if (process.env.BRIDGE_CACHE_DIR) return process.env.BRIDGE_CACHE_DIR;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'bridge');
}
