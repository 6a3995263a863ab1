import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

/** Watches a changing set of files; `close` stops everything. */
export interface FileWatcher {
  /** Replaces the set of watched files (after a reload the sources may name others). */
  update(files: readonly string[]): void;
  close(): void;
}

/**
 * Calls `onChange` once per burst of changes to any of `files`. Watches their directories, not
 * the files: editors save by writing a new file and renaming it over the old one, which silently
 * ends a watch on the old file's inode.
 */
export function watchFiles(
  files: readonly string[],
  onChange: (changed: string) => void,
  options: { debounceMs?: number; onError?: (error: Error) => void } = {},
): FileWatcher {
  const debounceMs = options.debounceMs ?? 150;
  const watchers = new Map<string, FSWatcher>();
  let wanted = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let last = '';

  const fire = (file: string) => {
    last = file;
    clearTimeout(timer);
    timer = setTimeout(() => onChange(last), debounceMs);
  };

  const update = (next: readonly string[]) => {
    wanted = new Set(next.map((file) => resolve(file)));
    const directories = new Set([...wanted].map((file) => dirname(file)));
    for (const [directory, watcher] of watchers) {
      if (!directories.has(directory)) {
        watcher.close();
        watchers.delete(directory);
      }
    }
    for (const directory of directories) {
      if (watchers.has(directory)) continue;
      try {
        const watcher = watch(directory, { persistent: false }, (_event, name) => {
          if (name === null) return;
          const file = resolve(directory, name.toString());
          if (wanted.has(file)) fire(file);
        });
        watcher.on('error', (error) => options.onError?.(error));
        watchers.set(directory, watcher);
      } catch (error) {
        options.onError?.(error as Error);
      }
    }
  };

  update(files);
  return {
    update,
    close() {
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

/** For log lines: the file's name without its directory. */
export const shortName = (file: string) => basename(file);
