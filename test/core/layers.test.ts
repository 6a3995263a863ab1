// The import structure points down only: bin/ (the composition root) → adapters/ → src/index.ts,
// and inside the core no folder reaches back up into the one that uses it. Read from the sources,
// so that a new import that breaks a layer fails here rather than in a review.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every relative import of every `.ts` file under `folder`: [importer, imported], repo-relative. */
async function importsUnder(folder: string): Promise<Array<[string, string]>> {
  const edges: Array<[string, string]> = [];
  const entries = await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = relative(ROOT, join(entry.parentPath, entry.name));
    const text = await readFile(join(ROOT, file), 'utf8');
    // `import … from`, `export … from`, `import '…'` and `import('…')`, type-only ones included.
    for (const match of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = join(dirname(file), match[1] as string).replace(/\.js$/, '.ts');
      edges.push([file, target]);
    }
  }
  return edges;
}

/**
 * The files the module `entry` evaluates before any of its code runs: its value imports, followed
 * (type-only imports and `import()` are not), and the packages among them.
 */
async function evaluatedWith(entry: string): Promise<{ files: Set<string>; packages: Set<string> }> {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (files.has(file)) continue;
    files.add(file);
    const text = await readFile(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(
      /^(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+'([^']+)'|^import\s+'([^']+)'/gm,
    )) {
      const specifier = (match[1] ?? match[2]) as string;
      if (specifier.startsWith('.')) queue.push(join(dirname(file), specifier).replace(/\.js$/, '.ts'));
      else if (!specifier.startsWith('node:')) packages.add(specifier);
    }
  }
  return { files, packages };
}

const within = (folder: string) => (path: string) => path === folder || path.startsWith(`${folder}/`);

describe('layers', () => {
  it('the core imports neither an adapter nor the command-line entry', async () => {
    const edges = await importsUnder('src');
    expect(edges.length).toBeGreaterThan(100);
    const up = edges.filter(([, to]) => within('adapters')(to) || within('bin')(to) || !within('src')(to));
    expect(up).toEqual([]);
  });

  it('adapters import the core only through src/index.ts, and never bin/', async () => {
    const edges = await importsUnder('adapters');
    const intoCore = edges.filter(([, to]) => within('src')(to));
    expect(intoCore.length).toBeGreaterThan(0);
    const bad = edges.filter(
      ([, to]) => (within('src')(to) && to !== 'src/index.ts') || within('bin')(to) || within('test')(to),
    );
    expect(bad).toEqual([]);
  });

  it('inside the core, tasks/ does not reach up into server/, transports/ into auth/, nor config/ into run-cli.ts', async () => {
    const edges = await importsUnder('src');
    const bad = edges.filter(
      ([from, to]) =>
        (within('src/tasks')(from) && within('src/server')(to)) ||
        (within('src/transports')(from) && within('src/auth')(to)) ||
        (within('src/config')(from) && to === 'src/run-cli.ts'),
    );
    expect(bad).toEqual([]);
  });

  // serve() starts the sources' reads (GitHub's 13 MB spec: ~10 ms) and then imports the protocol
  // side, whose modules (the HTTP server, the SDK: ~15 ms) are evaluated while the reads are in
  // flight. Evaluated with the command line instead, they ran before any read had started, and the
  // start then sat idle waiting for it.
  it('the command line evaluates neither the HTTP server nor the SDK before serve() has started reading', async () => {
    const { files, packages } = await evaluatedWith('bin/bridge.ts');
    expect(files).toContain('src/serve.ts');
    const protocolSide = [
      'src/server/protocol.ts',
      'src/server/create-server.ts',
      'src/transports/serve-http.ts',
    ];
    expect(protocolSide.filter((file) => files.has(file))).toEqual([]);
    expect([...packages].filter((name) => name.startsWith('@modelcontextprotocol/'))).toEqual([]);
  });

  it('the composition root is bin/bridge.ts, which names the built-in adapters', async () => {
    const targets = (await importsUnder('bin')).map(([, to]) => to);
    expect(targets).toEqual(
      expect.arrayContaining([
        'src/run-cli.ts',
        'adapters/openapi/index.ts',
        'adapters/graphql/index.ts',
        'adapters/cli/index.ts',
      ]),
    );
  });
});
