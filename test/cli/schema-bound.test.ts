// A CLI tool's input schema is held to the bound every tool's is (MAX_SCHEMA_ENTRIES, as OpenAPI
// and GraphQL tools): a help text listing 3,000 options, one of them with 2,500 choices, made a
// 128 kB tools/list entry of one tool. Options are offered in their order while they fit; one that
// would pass the bound is left out whole. A program on PATH printing such a help, served by the
// built bridge to a v1 client over stdio.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_SCHEMA_ENTRIES } from '../../src/index.js';
import { schemaEntries } from '../helpers/schema-entries.js';
import { clientStdout, clientText, serveCliForTests, tempDir } from './helpers.js';

const PROGRAM = 'bridge-many-options';
const bin = tempDir('bridge-many-options-bin-');
afterAll(() => bin[Symbol.dispose]());
writeFileSync(
  join(bin.path, PROGRAM),
  `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo "Usage: ${PROGRAM} [OPTIONS] [FILE...]"
  echo "Prints the arguments it is given."
  echo
  echo "Options:"
  printf '      --mode <MODE>  how to print [possible values: %s]\\n' "$(seq -s', ' -f 'm%g' 1 2500)"
  for i in $(seq 1 3000); do echo "  --opt-$i  option number $i"; done
  exit 0
fi
if [ "$1" = "--version" ]; then echo "${PROGRAM} 1.0"; exit 0; fi
echo "ran: $*"
`,
);
chmodSync(join(bin.path, PROGRAM), 0o755);

const { client } = serveCliForTests(PROGRAM, 'v1', 'stdio', {
  env: { PATH: `${bin.path}:${process.env.PATH}` },
});
const TOOL = PROGRAM.replaceAll('-', '_');

describe('a CLI tool whose help lists thousands of options', () => {
  it('lists an input schema within the bound, and says what it left out', async () => {
    const tool = (await client().listTools()).tools.find((entry) => entry.name === TOOL);
    const schema = tool?.inputSchema as { properties: Record<string, unknown> };
    expect(schemaEntries(schema)).toBeLessThanOrEqual(MAX_SCHEMA_ENTRIES);
    const names = Object.keys(schema.properties);
    // Kept in their order while they fit; the option with 2,500 choices is left out whole.
    expect(names).toEqual(expect.arrayContaining(['opt-1', 'opt-1000', 'args', 'cwd', 'timeout']));
    expect(names).not.toContain('mode');
    expect(names).not.toContain('opt-3000');
    expect(tool?.description).toMatch(
      /1,\d{3} more options are not offered, to keep this tool's input schema within 2,000 entries \(--mode, --opt-/,
    );
    expect(client().stderr()).toMatch(
      /offers 1,\d{3} of its 3,001 options \(--mode, --opt-\d+.*left out\): a tool's input schema lists at most 2,000 entries/,
    );
  });

  it('runs with an offered option and refuses one left out', async () => {
    const ran = await client().callTool(TOOL, { 'opt-1': true, args: ['x'] });
    expect(ran.isError, clientText(ran)).toBeFalsy();
    expect(clientStdout(ran)).toBe('ran: --opt-1 -- x\n');
    const refused = await client().callTool(TOOL, { 'opt-3000': true });
    expect(refused.isError).toBe(true);
    expect(clientText(refused)).toContain('opt-3000');
  });
});
