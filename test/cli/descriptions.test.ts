// What a model reads before it calls a tool: a description saying what the tool does, what its
// main arguments are and how the output comes back, not a placeholder ("Runs curl.", when curl's
// help has no summary) or help-text prose about "the 1st form" of a usage the model never sees.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findProgram } from '../../adapters/cli/find-program.js';
import { loadCli, outsideWorld, serveCliForTests } from './helpers.js';

const OVERLAYS = new URL('../../adapters/cli/overlays/', import.meta.url).pathname;
const { client } = serveCliForTests('curl', 'v2', 'stdio');

function summaryOf(description: unknown): string {
  return (typeof description === 'string' ? description : '').split('\n\n')[0] ?? '';
}

describe('tool descriptions', () => {
  it("tell curl's tools/list entry what it does, its main arguments and where the output goes", async () => {
    const curl = (await client().listTools()).tools.find((tool) => tool.name === 'curl');
    const summary = summaryOf(curl?.description);
    expect(summary).not.toBe('Runs curl.');
    for (const words of ['URLs', 'args', 'request', 'header', 'data', 'output', 'stdout', 'stderr', 'fail']) {
      expect(summary).toContain(words);
    }
  });

  it('of every bundled overlay program are more than a placeholder or help-text prose', async () => {
    using world = outsideWorld('bridge-descriptions-');
    const programs = readdirSync(OVERLAYS)
      .map((file) => file.replace(/\.yaml$/, ''))
      .filter((program) => {
        try {
          return findProgram(program, world.ROOT) !== undefined;
        } catch {
          return false;
        }
      });
    expect(programs).toEqual(expect.arrayContaining(['curl', 'ln', 'tar', 'wget', 'sqlite3']));
    for (const program of programs) {
      await using cli = await loadCli({ program, roots: [world.ROOT] }, world.ROOT);
      for (const tool of cli.registry.tools) {
        const summary = summaryOf(tool.definition.description);
        expect(summary, tool.name).not.toMatch(/^Runs \S+\.$/);
        expect(summary.length, `${tool.name}: ${summary}`).toBeGreaterThanOrEqual(10);
        // ln's help: "In the 1st form, create a link to TARGET…"; tar's: "can restore individual
        // files", which it cannot here (extracting is not offered).
        expect(summary, tool.name).not.toMatch(/\b(1st|2nd|3rd) form\b|GNU 'tar' saves/);
      }
    }
  }, 60_000);
});
