// Build step after `tsc`: bundles the command-line entry (dist/bin/bridge.js) and everything it
// imports into a few files, so that a start loads a handful of modules instead of hundreds (the MCP SDK,
// zod and the bridge's own). Each adapter stays a chunk of its own, loaded only by its command.
// The sources, the tests and the rest of dist/ are untouched; `node dist/bin/bridge.js` is the
// same program either way.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { parse } from 'yaml';

const dir = 'dist/bin';
for (const file of readdirSync(dir)) if (/^chunk-.*\.js$|\.map$/.test(file)) rmSync(`${dir}/${file}`);

await build({
  entryPoints: [`${dir}/bridge.js`],
  outdir: dir,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  chunkNames: 'chunk-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // CommonJS packages the bridge imports dynamically: a split chunk would expose only their
  // `default`, so Node loads them itself (they are dependencies, always installed).
  external: ['undici', 'yaml', '@apidevtools/swagger-parser'],
  // Bundled CommonJS code may `require` Node built-ins; an ES module has no `require` of its own.
  banner: {
    js: "import { createRequire as __bridgeCreateRequire } from 'node:module'; const require = __bridgeCreateRequire(import.meta.url);",
  },
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});

// The bundled CLI overlays as JSON beside the bundle (looked up before the YAML originals), so a
// start reads them without loading the YAML parser. Same data: parsed here by the same library.
// Emptied first: the JSON of an overlay since removed would otherwise still be found and applied.
rmSync(`${dir}/overlays`, { recursive: true, force: true });
mkdirSync(`${dir}/overlays`, { recursive: true });
for (const file of readdirSync('adapters/cli/overlays')) {
  if (!/\.ya?ml$/.test(file)) continue;
  const data = parse(readFileSync(`adapters/cli/overlays/${file}`, 'utf8'));
  writeFileSync(`${dir}/overlays/${file.replace(/\.ya?ml$/, '.json')}`, JSON.stringify(data));
}
