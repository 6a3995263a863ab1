// A 2026-07-28 client over stdio whose envelope the lane does not read itself (here: an
// `experimental` capability; plain ones, see stdio-modern-opening.test.ts): its tools/list goes
// through the SDK until the SDK has accepted its envelope once, then the lane answers from the
// entries' JSON (list-json.ts), as over HTTP. It must answer what the SDK answers (the same JSON):
// the same request is sent with an envelope the SDK has not seen (the SDK answers) and with one it
// has (the lane answers), to a real bridge process on stdio serving an OpenAPI spec from its
// conversion cache (kept text) and converting (none).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineClient } from '../helpers/line-client.js';
import { envelope } from '../helpers/modern-request.js';

const SPEC = join(import.meta.dirname, '../../fixtures/openapi/api-3.1.yaml');
let cacheDir: string;

/** A 2026-07-28 client over stdio; `list` gives the answer's line as the bridge wrote it. */
class ModernClient extends LineClient {
  constructor(args: string[]) {
    super(args, { BRIDGE_CACHE_DIR: cacheDir });
  }

  /** The answer's line, to `tools/list` from client `client` (its envelope). */
  list(id: string | number, client: string, params: Record<string, unknown> = {}): Promise<string> {
    return this.line(id, 'tools/list', { ...params, _meta: envelope({ experimental: {} }, client) });
  }
}

beforeAll(() => {
  cacheDir = mkdtempSync(join(tmpdir(), 'bridge-modern-list-'));
});
afterAll(() => {
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('tools/list of a 2026-07-28 client over stdio', () => {
  it.each([
    ['converting (no kept text), which fills the cache', []],
    ['from the conversion cache (kept text)', []],
  ])('%s: the lane answers, once the SDK accepted the envelope, exactly as the SDK', async (_, extra) => {
    // The first start (a fresh cache directory) converts and writes the cache as it closes; the
    // second reads it.
    const client = new ModernClient([
      'openapi',
      SPEC,
      '--base-url',
      'http://127.0.0.1:9',
      '--tools',
      'all',
      ...extra,
    ]);
    try {
      const sdk = await client.list(1, 'first'); // an envelope the SDK has not seen: the SDK answers
      const lane = await client.list(2, 'first');
      const sdkAgain = await client.list(3, 'second');
      // Equal as JSON: kept text lists its members in its own order (the title second).
      expect(JSON.parse(lane)).toEqual({ ...JSON.parse(sdk), id: 2 });
      expect(JSON.parse(sdkAgain)).toEqual({ ...JSON.parse(sdk), id: 3 });
      expect(lane.endsWith('"jsonrpc":"2.0","id":2}')).toBe(true);
      const page = JSON.parse(lane) as { result: { tools: unknown[]; resultType?: string } };
      expect(page.result.tools.length).toBeGreaterThan(0);
      expect(page.result.resultType).toBe('complete');
    } finally {
      await client.close();
    }
  });
});
