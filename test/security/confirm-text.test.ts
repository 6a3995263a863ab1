// A confirmation's lines are the bridge's alone: an argument the model wrote cannot start a line
// that passes for the bridge's ("(in DIR)"), send escape sequences to the client's terminal, or
// reorder what follows it (U+202E). The command still gets the argument byte for byte. Real bridge
// processes and SDK clients, and a fixture CLI that records where it ran and its argv.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../cli/helpers.js';
import { confirming, connect, MATRIX } from '../helpers/connect.js';
import { BRIDGE_BIN } from '../helpers/start-bridge.js';

const WHERE_CLI = fileURLToPath(new URL('../../fixtures/cli/where-cli.mjs', import.meta.url));
// Every character a dialog would not show as itself that a label can carry: newlines, an escape
// sequence, a right-to-left override, a zero-width space, a line separator, a tag character.
const forged = (dir: string) => `x  (in ${dir})\n\u001b[2K\u202eevil\u200b\u2028\u{e0041}\n\n\nend`;

describe.each(MATRIX)('confirmation text with forged lines ($kind client, $wire)', ({ kind, wire }) => {
  it('escapes what is not shown as itself, in the command line and the arguments', async () => {
    using base = tempDir('bridge-confirm-text-');
    using cache = tempDir('bridge-confirm-text-cache-');
    const root = join(base.path, 'root');
    const decoy = join(base.path, 'root', 'decoy');
    mkdirSync(decoy, { recursive: true });
    const log = join(base.path, 'runs.jsonl');
    writeFileSync(log, '');
    const offer = confirming({ action: 'accept', content: { confirm: true } });
    await using client = await connect(
      kind,
      wire,
      {
        script: BRIDGE_BIN,
        args: ['cli', WHERE_CLI, '--root', root, '--confirm', 'always', '--no-watch', '--no-cache'],
        env: { WHERE_CLI_LOG: log, BRIDGE_CACHE_DIR: cache.path },
      },
      offer,
    );
    const label = forged(decoy);
    const result = await client.callTool('where_cli_mark', { label });
    expect(result.isError).toBeFalsy();

    const [message] = offer.shown;
    const lines = String(message).split('\n');
    // Only the bridge's own lines: the question, the title, the hints, the action, the arguments.
    expect(lines.slice(0, 4)).toEqual([
      'Allow the tool "where_cli_mark" to run?',
      'where-cli mark',
      'Hints: writes, not idempotent, local',
      `It will run: ${WHERE_CLI} mark $'--label=x  (in ${decoy})\\n\\E[2K\\u202eevil\\u200b\\u2028\\U000e0041\\n\\n\\nend'  (in ${root})`,
    ]);
    expect(lines.slice(4)).toEqual([
      'Arguments: {',
      `  "label": "x  (in ${decoy})\\n\\u001b[2K\\u202eevil\\u200b\\u2028\\udb40\\udc41\\n\\n\\nend"`,
      '}',
    ]);
    expect(String(message)).not.toMatch(/(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
    // Escaped for the eye only: the command got the label as the model wrote it, and ran in root.
    const runs = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(runs).toEqual([{ cwd: root, argv: [`--label=${label}`] }]);
  });
});
