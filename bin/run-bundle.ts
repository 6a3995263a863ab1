import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { cacheDir } from '../src/cache-dir.js';
import {
  type CodeCacheKey,
  codeCacheFile,
  currentKey,
  readCodeCache,
  writeCodeCache,
} from '../src/code-cache.js';

type CommonJsWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: { exports: unknown },
  filename: string,
  dirname: string,
) => void;

/**
 * Runs the bundled command line (a CommonJS bundle written as one function expression, see
 * scripts/bundle-cli.mjs) through V8's code cache: compiled from the cached data of an earlier
 * start when there is valid data for this bundle (its build hash, size and mtime), Node and flags,
 * else compiled from source and cached for the next start. `sha256` is the bundle's hash from the build; without it, or with
 * `BRIDGE_CODE_CACHE=off`, nothing is read or written.
 */
export function runBundle(file: string, sha256: string | undefined): void {
  const { source, stamp } = readBundle(file);
  const key = sha256 && process.env.BRIDGE_CODE_CACHE !== 'off' ? currentKey(sha256, stamp) : undefined;
  const cache = key ? codeCacheFile(cacheDir(), key) : undefined;
  const cachedData = key && cache ? readCodeCache(cache, key) : undefined;
  const script = new Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
  if (key && cache && (!cachedData || script.cachedDataRejected)) saveWhenStarted(script, cache, key);
  const wrapper = script.runInThisContext() as CommonJsWrapper;
  const module = { exports: {} };
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
}

// The bundle's source, and its size and nanosecond mtime (what a hand edit of the built bundle
// changes), both from one open file.
function readBundle(file: string): { source: string; stamp: string } {
  const fd = openSync(file, 'r');
  try {
    const stat = fstatSync(fd, { bigint: true });
    // The build checks that the bundle is ASCII, so latin1 decodes it exactly, and faster than UTF-8.
    return { source: readFileSync(fd, 'latin1'), stamp: `${stat.size}:${stat.mtimeNs}` };
  } finally {
    closeSync(fd);
  }
}

// The data is taken after the start, so that it holds the functions a start compiles, not just the
// top level: when the process ends successfully, or a few seconds in for a server that runs on.
function saveWhenStarted(script: Script, file: string, key: CodeCacheKey): void {
  let saved = false;
  const save = () => {
    if (saved) return;
    saved = true;
    writeCodeCache(file, key, script.createCachedData());
  };
  setTimeout(save, 5_000).unref();
  process.once('exit', (code) => {
    if (code === 0) save();
  });
}
