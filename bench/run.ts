// `npm run bench`: runs every benchmark script under dist/bench/ in turn, each in a fresh process,
// and fails when one of them misses a target. `stores` needs redis-server and nginx (skipped without).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const all = readdirSync(dir)
  .filter((file) => file.endsWith('.js') && file !== 'run.js' && !file.startsWith('_'))
  .sort();
const scripts = all.filter((file) => only.length === 0 || only.some((name) => file.startsWith(name)));
const unmatched = only.filter((name) => !all.some((file) => file.startsWith(name)));
if (unmatched.length > 0) {
  const known = all.map((file) => file.replace(/\.js$/, '')).join(', ');
  process.stderr.write(`No benchmark named ${unmatched.join(', ')}; the benchmarks are ${known}.\n`);
  process.exit(2);
}

let failed = 0;
for (const script of scripts) {
  process.stdout.write(`\n## ${script.replace(/\.js$/, '')}\n\n`);
  const result = spawnSync(process.execPath, ['--expose-gc', `${dir}${script}`], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.stdout.write(`\n${scripts.length - failed} benchmarks met their targets, ${failed} missed.\n`);
process.exitCode = failed > 0 ? 1 : 0;
