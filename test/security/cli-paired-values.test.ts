// A repeatable two-value option (`--rawfile NAME FILE`, given many times) arrives as
// [[name, file], …]: every string inside must meet the path and `@file` checks, as a single pair
// does. Real jq, with an overlay that marks --rawfile repeatable and its values as paths.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCli, outsideWorld, textOf } from '../cli/helpers.js';

const world = outsideWorld('bridge-paired-');
const { ROOT, OUT, SECRET } = world;
writeFileSync(join(ROOT, 'mine.txt'), 'mine\n');
// jq 1.6 reads a `--` before the filter as an error: no end-of-options marker.
writeFileSync(
  join(ROOT, 'jq.yaml'),
  [
    'program: jq',
    'endOfOptions: null',
    'commands:',
    '  "":',
    '    options:',
    '      rawfile: { repeatable: true, path: path }',
    '      arg: { repeatable: true }',
  ].join('\n'),
);
afterAll(() => world[Symbol.dispose]());

describe('jq --rawfile NAME FILE, repeatable', () => {
  it('reads a file inside the roots and refuses one outside, in any pair', async () => {
    await using cli = await loadCli({ program: 'jq', overlay: 'jq.yaml', roots: [ROOT] }, ROOT);
    const schema = cli.registry.get('jq')?.definition.inputSchema as {
      properties: Record<string, { type?: string; items?: unknown }>;
    };
    expect(schema.properties.rawfile).toMatchObject({ type: 'array', items: { type: 'array' } });
    const inside = await cli.call('jq', {
      rawfile: [['a', 'mine.txt']],
      n: true,
      operands: ['$a'],
    });
    expect(inside.structuredContent?.stdout, textOf(inside)).toBe('"mine\\n"\n');
    const outside = await cli.call('jq', {
      rawfile: [
        ['a', 'mine.txt'],
        ['s', join(OUT, 'secret.txt')],
      ],
      n: true,
      operands: ['$s'],
    });
    const text = textOf(outside);
    expect(outside.isError, text).toBe(true);
    expect(text).toContain('refused: rawfile[1][1]');
    expect(text).toContain(`outside the allowed roots: ${ROOT}`);
    expect(JSON.stringify(outside)).not.toContain(SECRET);
  });

  it('checks @file in every value of a repeated pair', async () => {
    await using cli = await loadCli({ program: 'jq', overlay: 'jq.yaml', roots: [ROOT] }, ROOT);
    const result = await cli.call('jq', {
      arg: [
        ['x', 'plain'],
        ['y', `@${join(OUT, 'secret.txt')}`],
      ],
      n: true,
      operands: ['$y'],
    });
    expect(result.isError, textOf(result)).toBe(true);
    expect(textOf(result)).toContain('refused: arg[1][1]');
  });
});
