// A value an overlay refuses (a sqlite3 dot-command, a jq import, a git ext:: URL) is refused with
// words saying what and why, never with the regular expression that caught it: neither a user nor
// a model can act on a regex. Each bundled overlay's refused patterns, through the real programs.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readOverlay } from '../../adapters/cli/load-overlay.js';
import { loadCli, outsideWorld, textOf } from './helpers.js';

const OVERLAYS = new URL('../../adapters/cli/overlays/', import.meta.url).pathname;
const world = outsideWorld('bridge-refusals-');
afterAll(() => world[Symbol.dispose]());

async function refusedOf(program: string): Promise<Array<{ pattern: string; reason: string }>> {
  const overlay = await readOverlay(join(OVERLAYS, `${program}.yaml`));
  return (overlay.dangerousValues ?? []).map((entry) =>
    typeof entry === 'string' ? { pattern: entry, reason: '' } : entry,
  );
}

// For each bundled overlay with refused patterns: a call per pattern, in the order they are listed.
const CALLS: Record<string, Array<[tool: string, args: Record<string, unknown>]>> = {
  curl: [['curl', { 'write-out': '%output{got.txt}%{http_code}', args: ['http://127.0.0.1:9/'] }]],
  git: [
    ['git_ls_remote', { args: ['ext::sh -c touch% pwned'] }],
    ['git_ls_remote', { args: ['fd::3'] }],
    ['git_ls_remote', { args: ['ssh://-oProxyCommand=touch% pwned/x'] }],
    ['git_log', { revisions: ['core.sshCommand=touch pwned'] }],
  ],
  jq: [
    ['jq', { filter: ['import "../x" as $d; .'], stdin: '{}' }],
    ['jq', { filter: ['modulemeta'], stdin: '"x"' }],
  ],
  openssl: [['openssl_rsa', { passin: 'env:HOME' }]],
  sqlite3: [
    ['sqlite3', { database: [':memory:'], sql: ['.t traced.txt', 'select 1'] }],
    ['sqlite3', { database: [':memory:'], sql: ['."trace" traced.txt'] }],
    ['sqlite3', { database: [':memory:'], sql: ["select name from fsdir('.')"] }],
  ],
};

describe('refused values', () => {
  it('are given a reason in every bundled overlay', async () => {
    const programs = readdirSync(OVERLAYS).map((file) => file.replace(/\.yaml$/, ''));
    const withPatterns: string[] = [];
    for (const program of programs) {
      const refused = await refusedOf(program);
      if (refused.length > 0) withPatterns.push(program);
      for (const { pattern, reason } of refused) expect(reason, `${program}: /${pattern}/`).not.toBe('');
    }
    expect(withPatterns.sort()).toEqual(Object.keys(CALLS).sort());
  });

  it.each(Object.keys(CALLS))('are refused by %s in words, without the pattern', async (program) => {
    const refused = await refusedOf(program);
    const calls = CALLS[program] ?? [];
    expect(calls).toHaveLength(refused.length);
    await using cli = await loadCli({ program, roots: [world.ROOT] }, world.ROOT);
    for (const [index, [tool, args]] of calls.entries()) {
      const { pattern, reason } = refused[index] as { pattern: string; reason: string };
      const result = await cli.call(tool, args);
      const text = textOf(result);
      expect(result.isError, text).toBe(true);
      expect(text).toContain(`: ${reason}`);
      expect(text).not.toContain(pattern);
      expect(text).not.toContain('refused pattern');
    }
    expect(readdirSync(world.ROOT)).toEqual([]);
  });

  it('of a bare pattern in a user overlay name the entry, not the pattern', async () => {
    const overlay = join(world.base.path, 'jq.yaml');
    writeFileSync(overlay, "program: jq\ndangerousValues: ['\\binput_filename\\b', '\\$__loc__']\n");
    await using cli = await loadCli({ program: 'jq', roots: [world.ROOT], overlay }, world.ROOT);
    const result = await cli.call('jq', { operands: ['$__loc__'], stdin: '{}' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      `operands[0] is "$__loc__": this program's overlay refuses such values (its dangerousValues entry 2)`,
    );
    expect(textOf(result)).not.toContain('__loc__\\');
  });
});
