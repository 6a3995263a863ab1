// What the security tests assert on: the filesystem and the process table, not only error texts.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Every entry under `dir` (links not followed) with its type, size and modification time. */
export function snapshot(dir: string): string[] {
  const entries: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    entries.push(
      `${path} ${stat.isDirectory() ? 'dir' : stat.isSymbolicLink() ? 'link' : stat.size} ${stat.mtimeMs}`,
    );
    if (stat.isDirectory()) for (const name of readdirSync(path).sort()) walk(join(path, name));
  };
  walk(dir);
  return entries;
}

/**
 * Processes whose working directory is under `dir` or whose command line names it, leaving out the
 * bridges under test (their command lines carry `--root`) and this test process.
 */
export function processesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (/^\d+ \(.*\) [ZX]/.test(stat)) continue;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes('bridge.js')) continue;
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${name}/cwd`);
      } catch {
        // Not ours to read.
      }
      if (cwd === dir || cwd.startsWith(`${dir}/`) || cmdline.includes(dir))
        found.push(`${name}: ${cmdline}`);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}
