/**
 * `value` with its percent escapes decoded, as a program that parses it as a URL reads it (curl's
 * `file:` paths, `ssh://%2DoProxyCommand=…`). `decodeURIComponent` throws on the first malformed
 * escape (`y%G`), yet programs still decode the valid ones around it: then each valid escape is
 * decoded on its own, and the rest is left as written.
 */
export function percentDecoded(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value.replace(/%[0-9a-f]{2}/gi, (encoded) =>
      String.fromCharCode(Number.parseInt(encoded.slice(1), 16)),
    );
  }
}
