import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { TestClient } from '../helpers/connect.js';
import { distPath } from '../helpers/start-bridge.js';

/** The `bridge` command plus the test-only `fixture` source kind (test/servers/config-bridge.ts). */
export const CONFIG_BIN = distPath('test/servers/config-bridge.js');

/** A temporary directory removed on dispose. */
export async function tempDir(): Promise<AsyncDisposable & { path: string; file(name: string): string }> {
  const path = await mkdtemp(join(tmpdir(), 'bridge-config-'));
  return {
    path,
    file: (name) => join(path, name),
    [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }),
  };
}

/** Writes `value` as YAML. */
export function writeYaml(file: string, value: unknown): Promise<void> {
  return writeFile(file, stringify(value));
}

// Shared with the transport × era notification tests.
export { onToolsChanged } from '../helpers/notifications.js';

/** The names a client sees, sorted. */
export async function toolNames(client: TestClient): Promise<string[]> {
  const { tools } = await client.listTools();
  return tools.map((tool) => tool.name).sort();
}

/**
 * Waits until the client lists exactly `names` (a few seconds at most), then returns them. Used
 * after a change notification, which may be for an earlier edit still being applied.
 */
export async function toolNamesSoon(
  client: TestClient,
  names: string[],
  timeoutMs = 5_000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let seen = await toolNames(client);
  while (JSON.stringify(seen) !== JSON.stringify(names) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = await toolNames(client);
  }
  return seen;
}
