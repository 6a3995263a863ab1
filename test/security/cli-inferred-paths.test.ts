// Paths of CLIs without an overlay are inferred from their help texts (placeholders, option names,
// descriptions, usage lines) and confined like git's: a real Cobra CLI (buf, from npm), kubectl
// when installed, and a plain --help program. One row per attack, checked on the world.

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCli, outsideWorld, textOf } from '../cli/helpers.js';

const world = outsideWorld('bridge-inferred-');
const { ROOT, OUT, SECRET } = world;
writeFileSync(
  join(OUT, 'secret.proto'),
  `syntax = "proto3";\nmessage Secret { string ${SECRET.replaceAll('-', '_')} = 1; }\n`,
);
afterAll(() => world[Symbol.dispose]());

interface Row {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  refuses: string;
}

async function runRows(program: string, rows: Row[], allow?: string[]) {
  await using cli = await loadCli({ program, roots: [ROOT], ...(allow ? { allow } : {}) }, ROOT);
  for (const row of rows) {
    const result = await cli.call(row.tool, row.args);
    const text = textOf(result);
    expect(result.isError, `${row.name}: ${text}`).toBe(true);
    expect(text, row.name).toContain(`refused: ${row.refuses}`);
    expect(text, row.name).toContain(`outside the allowed roots: ${ROOT}`);
    expect(JSON.stringify(result), row.name).not.toContain(SECRET);
  }
  expect(readdirSync(OUT).sort()).toEqual(['secret.proto', 'secret.txt']);
}

describe('a plain --help program', () => {
  const program = join(ROOT, 'reader');
  writeFileSync(
    program,
    `#!/bin/sh
if [ "$1" = "--help" ]; then cat <<'EOF'
Usage: reader [OPTION]... [FILE]...
Print FILEs.

Options:
  -i, --input=FILE        read this file too
  -o, --output=FILE       write here instead of stdout
  -C, --chdir <dir>       change to this directory first
      --log-file PATH     where to log
      --name NAME         a label
      --help              show this help
EOF
exit 0; fi
for arg in "$@"; do case "$arg" in --input=*) cat "\${arg#--input=}";; --*) ;; *) cat "$arg";; esac; done
`,
  );
  chmodSync(program, 0o755);

  it('confines FILE operands, =FILE, <dir> and *-file options, and leaves a NAME alone', async () => {
    await runRows(program, [
      { name: 'FILE operand', tool: 'reader', args: { args: [join(OUT, 'secret.txt')] }, refuses: 'args[0]' },
      { name: '--input=FILE', tool: 'reader', args: { input: join(OUT, 'secret.txt') }, refuses: 'input' },
      { name: '--output=FILE', tool: 'reader', args: { output: join(OUT, 'o.txt') }, refuses: 'output' },
      { name: '--chdir <dir>', tool: 'reader', args: { chdir: '../outside' }, refuses: 'chdir' },
      {
        name: '@file in any value',
        tool: 'reader',
        args: { name: `@${join(OUT, 'secret.txt')}` },
        refuses: 'name',
      },
      {
        name: '@file in an operand',
        tool: 'reader',
        args: { args: ['@../outside/secret.txt'] },
        refuses: 'args[0]',
      },
      {
        name: '--log-file PATH',
        tool: 'reader',
        args: { 'log-file': join(OUT, 'log') },
        refuses: 'log-file',
      },
      {
        name: 'name=@file in a value (curl -F, gh -F)',
        tool: 'reader',
        args: { name: `body=@${join(OUT, 'secret.txt')}` },
        refuses: 'name',
      },
    ]);
    await using cli = await loadCli({ program, roots: [ROOT] }, ROOT);
    const schema = cli.registry.get('reader')?.definition.inputSchema as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(schema.properties.input?.['x-path']).toBe('path');
    expect(schema.properties.name?.['x-path']).toBeUndefined();
    writeFileSync(join(ROOT, 'inside.txt'), 'inside\n');
    const ok = await cli.call('reader', { name: '/not/a/path', args: ['inside.txt'] });
    expect(ok.structuredContent?.stdout).toBe('inside\n');
  });
});

describe('a Cobra CLI: buf from npm', () => {
  const buf = fileURLToPath(new URL('../../node_modules/.bin/buf', import.meta.url));

  it('confines <source>, --output, --config and --path', async () => {
    await runRows(
      buf,
      [
        { name: '<source> outside', tool: 'buf_format', args: { args: [OUT] }, refuses: 'args[0]' },
        {
          // The read-only buf_format has no --output: it prints; writing is buf_format_write's.
          name: '--output outside',
          tool: 'buf_format_write',
          args: { output: join(OUT, 'f.proto') },
          refuses: 'output',
        },
        {
          name: '--config outside',
          tool: 'buf_format',
          args: { config: join(OUT, 'buf.yaml') },
          refuses: 'config',
        },
        {
          name: '--path outside',
          tool: 'buf_format',
          args: { path: [join(OUT, 'secret.proto')] },
          refuses: 'path[0]',
        },
      ],
      ['format'],
    );
  });
});

const kubectl = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!kubectl)('a Cobra CLI: kubectl', () => {
  it('confines --template, which reads a template file', async () => {
    const kubeconfig = join(ROOT, 'kubeconfig');
    writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    process.env.KUBECONFIG = kubeconfig;
    try {
      await runRows(
        'kubectl',
        [
          {
            name: '--template file outside',
            tool: 'kubectl_config_view',
            args: { output: 'go-template-file', template: join(OUT, 'secret.txt') },
            refuses: 'template',
          },
        ],
        ['config'],
      );
      expect(existsSync(kubeconfig)).toBe(true);
    } finally {
      delete process.env.KUBECONFIG;
    }
  });
});
