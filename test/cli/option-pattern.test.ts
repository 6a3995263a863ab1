import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildInputSchema } from '../../adapters/cli/build-input-schema.js';
import { readOverlay } from '../../adapters/cli/load-overlay.js';
import { compileValidator } from '../../src/index.js';

// An overlay's `pattern` for an option whose value the program reads as more than it looks
// (OpenSSL's `-newkey`, which also takes `param:FILE`): every value must match it.
const dir = mkdtempSync(join(tmpdir(), 'bridge-option-pattern-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function overlayWith(pattern: string): string {
  const file = join(dir, `overlay-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      program: 'openssl',
      commands: { req: { options: { newkey: { flag: '-newkey', kind: 'string', pattern } } } },
    }),
  );
  return file;
}

describe("an overlay option's pattern", () => {
  it('is refused at load when it is not a regular expression, naming where', async () => {
    await expect(readOverlay(overlayWith('^(rsa'))).rejects.toThrow(
      /commands\.req\.options\.newkey\.pattern: not a valid regular expression/,
    );
  });

  it("goes into the option's schema, and the arguments are checked against it", async () => {
    const overlay = await readOverlay(overlayWith('^[A-Za-z0-9-]+(:[0-9]+)?$'));
    const pattern = overlay.commands?.req?.options?.newkey?.pattern;
    const option = {
      name: 'newkey',
      flag: '-newkey',
      kind: 'string' as const,
      ...(pattern ? { pattern } : {}),
    };
    const schema = buildInputSchema(
      { path: ['req'], description: 'req', options: [option], positionals: [] },
      [option],
      { defaultTimeoutMs: 1_000, maxTimeoutMs: 2_000, roots: [dir] },
    );
    const properties = schema.properties as Record<string, unknown>;
    expect(properties.newkey).toMatchObject({ type: 'string', pattern: '^[A-Za-z0-9-]+(:[0-9]+)?$' });
    const validate = compileValidator(schema);
    expect(validate({ newkey: 'rsa:3072' })).toEqual([]);
    expect(validate({ newkey: 'ed25519' })).toEqual([]);
    expect(validate({ newkey: 'param:/etc/params.pem' })).not.toEqual([]);
  });
});
