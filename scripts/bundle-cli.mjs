// Build step after `tsc`: bundles the command-line entry (tsc's dist/bin/bridge.js) and everything
// it imports into one file, dist/bin/bridge-bundle.js, so that a start loads one script instead of
// hundreds of modules (the MCP SDK, zod and the bridge's own). The executable, dist/bin/bridge.js,
// is then replaced by the small loader of bin/start.ts, which compiles the bundle through V8's code
// cache (Node 20 caches no compiled ES modules; a script's cache is ours to keep): see
// bin/run-bundle.ts. The sources, the tests and the rest of dist/ are untouched;
// `node dist/bin/bridge.js` is the same program either way.
//
// The bundle is CommonJS written as one function expression `(function (exports, require, module,
// __filename, __dirname) {…})`, which the loader compiles with `vm.Script` and calls. Adapters
// are still evaluated only when their command runs (esbuild wraps lazily imported modules).
//
// The loader is CommonJS too, marked so by dist/bin/package.json: an ES module entry costs Node
// its ES module loader (~4 ms of every start). tsc's other outputs in dist/bin (start.js,
// run-bundle.js: ES modules, bundled into the loader) are removed, since that package.json would
// make them CommonJS.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { parse } from 'yaml';

const dir = 'dist/bin';
const entry = `${dir}/bridge.js`;
const bundle = `${dir}/bridge-bundle.js`;
// Left by earlier builds (the ES module chunks of the previous layout), and this build's marker,
// written again at the end: until then dist/bin holds tsc's ES modules.
for (const file of readdirSync(dir)) if (/^chunk-.*\.js$|\.map$/.test(file)) rmSync(`${dir}/${file}`);
rmSync(`${dir}/package.json`, { force: true });
if (readFileSync(entry, 'utf8').includes('BRIDGE_BUNDLE_SHA256')) {
  throw new Error(`${entry} is already the loader: run tsc (npm run build) before this script`);
}

await build({
  entryPoints: [entry],
  outfile: bundle,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // Loaded by Node from node_modules when first needed (they are dependencies, always installed).
  // The ref parser too: swagger-parser loads it from there, and a second copy in the bundle would
  // have resolver errors of another class than the one the parser keeps the messages of.
  external: ['undici', 'yaml', '@apidevtools/swagger-parser', '@apidevtools/json-schema-ref-parser'],
  // `import()` of those becomes `require`: the loader's script has no ES module loader behind it.
  supported: { 'dynamic-import': false },
  // Modules find files beside themselves (the CLI overlays, package.json) through import.meta.url.
  inject: ['scripts/import-meta-url.mjs'],
  define: { 'import.meta.url': '__bridgeImportMetaUrl' },
  banner: { js: '(function (exports, require, module, __filename, __dirname) {' },
  footer: { js: '})' },
  charset: 'ascii',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});

const source = readFileSync(bundle);
// The loader reads the bundle as latin1, which decodes only ASCII exactly.
if (source.some((byte) => byte > 0x7f)) throw new Error(`${bundle} is not ASCII`);
const sha256 = createHash('sha256').update(source).digest('hex');

await build({
  entryPoints: [`${dir}/start.js`],
  outfile: entry,
  allowOverwrite: true,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  inject: ['scripts/import-meta-url.mjs'],
  define: { BRIDGE_BUNDLE_SHA256: JSON.stringify(sha256), 'import.meta.url': '__bridgeImportMetaUrl' },
  logLevel: 'warning',
});
// The package's bin: `npx mcp-bridge` in a checkout runs it directly, so it must be executable
// (npm marks it only when installing or linking the package).
chmodSync(entry, 0o755);
for (const file of ['start.js', 'run-bundle.js', 'code-cache.js']) rmSync(`${dir}/${file}`, { force: true });
writeFileSync(`${dir}/package.json`, `${JSON.stringify({ type: 'commonjs' })}\n`);

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
