import { fileURLToPath } from 'node:url';
import { AskInterrupt, type ClientRoot } from './ask/client-ask.js';
import { BridgeError, describeError } from './errors.js';
import { escapeControl } from './escape-control.js';
import { listSome } from './list-some.js';
import type { Logger } from './logger.js';
import { clip, quote } from './quote-input.js';

/** How the client's roots are read for one call, in its era: `undefined` when it offers none. */
export type ReadClientRoots = () => Promise<readonly ClientRoot[] | undefined>;

/**
 * The client's roots as local directories, the same way in both eras: `undefined` when the client
 * offers no roots, else a list that is never empty. An entry that is no local file URL (another
 * scheme, a `file://host/` share) is skipped, and the log says so at debug level. A client that
 * offers roots of which none can be used confines a call to nothing: this throws, saying why, as
 * it does when the roots cannot be read at all (`roots/list` failed). Either way the tool must not
 * run unconfined, which is what `undefined` would let it do.
 */
export async function readLocalRoots(
  read: ReadClientRoots,
  options: { log: Logger; signal: AbortSignal },
): Promise<string[] | undefined> {
  let listed: readonly ClientRoot[] | undefined;
  try {
    listed = await read();
  } catch (error) {
    // A question waiting for the client's next round, or a bad answer: the era's own errors.
    if (error instanceof AskInterrupt || options.signal.aborted) throw error;
    throw new BridgeError(
      'unavailable',
      `The client's roots could not be read (${clip(describeError(error), 300)}), and this tool must stay inside them: nothing was run. Try again; if it keeps failing, check the roots the client offers.`,
      { cause: error },
    );
  }
  if (listed === undefined) return undefined;
  const paths: string[] = [];
  const skipped: string[] = [];
  for (const root of listed) {
    const path = localPath(root.uri);
    if (path === undefined) skipped.push(root.uri);
    else paths.push(path);
  }
  if (skipped.length > 0) {
    options.log.debug(`client roots skipped, not local file URLs: ${shown(skipped).join(', ')}`);
  }
  if (paths.length > 0) return paths;
  const what =
    skipped.length === 0
      ? 'it lists none'
      : `it lists only ${shown(skipped).join(', ')}, which are not local file URLs`;
  throw new BridgeError(
    'invalid_params',
    `The client offers roots but names no local directory (${what}), and this tool must stay inside them: nothing was run. Open a local folder in the client (a file:/// URL), or use a client that offers no roots.`,
  );
}

// The path of a `file:` URL on this machine; undefined for another scheme, a host's share
// (`file://server/share`) or a URL the platform cannot map (an encoded `/`).
function localPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

// A client's URIs as a message quotes them: a few, each cut and escaped.
function shown(uris: readonly string[]): string[] {
  return listSome(uris, {
    most: 5,
    show: (uri) => escapeControl(quote(uri)),
    more: (count) => `and ${count} more`,
  });
}
