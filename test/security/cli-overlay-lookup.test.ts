// The bundled overlays are looked up only inside the bridge's own package. Installed, the bundle
// runs from node_modules/<package>/dist/bin/: a lookup by a fixed number of `..` lands in
// node_modules/adapters/cli/overlays/, where another package could put an overlay that changes the
// tools (descriptions, options, hidden commands) of any program. The built bundle, copied into
// such an installed layout, served by a real v1 client over stdio.

import { chmodSync, cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { overlayDirs } from '../../adapters/cli/load-overlay.js';
import { tempDir } from '../cli/helpers.js';
import { connect } from '../helpers/connect.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const base = tempDir('bridge-overlay-lookup-');
afterAll(() => base[Symbol.dispose]());
const MODULES = join(base.path, 'node_modules');
const PACKAGE = join(MODULES, 'mcp-source-bridge');
mkdirSync(join(PACKAGE, 'dist'), { recursive: true });
cpSync(join(REPO, 'package.json'), join(PACKAGE, 'package.json'));
cpSync(join(REPO, 'dist', 'bin'), join(PACKAGE, 'dist', 'bin'), { recursive: true });
// The bundle's external dependencies, as an install would have them.
for (const name of ['undici', 'yaml', '@apidevtools']) {
  symlinkSync(join(REPO, 'node_modules', name), join(MODULES, name));
}

const WORK = join(base.path, 'work');
mkdirSync(WORK);
const program = join(WORK, 'lister');
writeFileSync(
  program,
  `#!/bin/sh
if [ "$1" = "--help" ]; then cat <<'EOF'
Usage: lister [OPTION]... [FILE]...
List FILEs.

Options:
      --long              long format
      --help              show this help
EOF
exit 0; fi
echo listed
`,
);
chmodSync(program, 0o755);

/** The description of the `lister` tool served by the installed bundle. */
async function listerDescription(): Promise<string | undefined> {
  await using client = await connect('v1', 'stdio', {
    script: join(PACKAGE, 'dist', 'bin', 'bridge.js'),
    args: ['cli', program, '--no-cache', '--root', WORK],
    env: { BRIDGE_CACHE_DIR: join(base.path, 'cache') },
  });
  const { tools } = await client.listTools();
  return tools.find((tool) => tool.name === 'lister')?.description as string | undefined;
}

function writeOverlay(dir: string, description: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'lister.yaml'),
    `program: lister\ncommands:\n  "":\n    description: ${description}\n`,
  );
}

describe('the bundled overlay lookup', () => {
  it("ignores an overlay beside the package (node_modules/adapters/cli/overlays/) and reads the package's own", async () => {
    writeOverlay(join(MODULES, 'adapters', 'cli', 'overlays'), 'FOREIGN OVERLAY');
    const foreign = await listerDescription();
    expect(foreign).toBeDefined();
    expect(foreign).not.toContain('FOREIGN OVERLAY');
    // The package's own YAML originals (adapters/cli/overlays/ at its root) are still found.
    writeOverlay(join(PACKAGE, 'adapters', 'cli', 'overlays'), 'OWN OVERLAY');
    expect(await listerDescription()).toContain('OWN OVERLAY');
  });

  it('looks beside the module and in the package root, from source, tsc output and the bundle', () => {
    const from = (path: string) => overlayDirs(pathToFileURL(join(REPO, path)).href);
    const originals = join(REPO, 'adapters', 'cli', 'overlays');
    expect(from('adapters/cli/load-overlay.ts')).toEqual([originals]);
    expect(from('dist/adapters/cli/load-overlay.js')).toEqual([
      join(REPO, 'dist', 'adapters', 'cli', 'overlays'),
      originals,
    ]);
    expect(from('dist/bin/chunk-X.js')).toEqual([join(REPO, 'dist', 'bin', 'overlays'), originals]);
    // Outside any bridge package: only the module's own directory.
    expect(overlayDirs(pathToFileURL(join(MODULES, 'other', 'index.js')).href)).toEqual([
      join(MODULES, 'other', 'overlays'),
    ]);
  });
});
