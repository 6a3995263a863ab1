/**
 * `build`, run on the first call only; later calls return its result (of an async `build`, the one
 * promise, settled or not). For zod schemas the core would otherwise build at import: building the
 * config file's and `--auth`'s schemas cost ~25 ms of every start, most of which (a shorthand
 * command, a cached start) never validates with them.
 */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
