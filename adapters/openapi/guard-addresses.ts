import { lookup } from 'node:dns/promises';
import { BridgeError, displayUrl } from '../../src/index.js';
import { addressInUrl } from './checked-lookup.js';
import { isPublicAddress } from './public-address.js';

/** Which addresses a source's calls may connect to, and the error for one they may not. */
export interface AddressGuard {
  allow(address: string): boolean;
  refuse(address: string, name?: string): BridgeError;
}

/**
 * The guard of a spec fetched by URL from a public address, served without `--base-url`: its calls
 * connect to public addresses only. Its author, somewhere on the internet, chose its servers, not
 * the user: a top-level server at 169.254.169.254, on `localhost` or on the user's network (or a
 * name resolving there, checked as each connection is made) would turn each tool into a request
 * inside the user's network, carrying the user's credentials. Undefined when the spec's own host is
 * not public (an internal spec server naming internal APIs), or cannot be resolved.
 */
export async function guardFetchedSpec(
  specUrl: string,
  isPublic: (address: string) => boolean = isPublicAddress,
): Promise<AddressGuard | undefined> {
  let url: URL;
  try {
    url = new URL(specUrl);
  } catch {
    return undefined;
  }
  const literal = addressInUrl(url);
  const addresses =
    literal !== undefined
      ? [literal]
      : await lookup(url.hostname, { all: true }).then(
          (found) => found.map(({ address }) => address),
          () => [],
        );
  if (addresses.length === 0 || !addresses.every(isPublic)) return undefined;
  return {
    allow: isPublic,
    refuse: (address, name) =>
      new BridgeError(
        'invalid_input',
        `the server ${name ? `${name} (${address})` : address} is not a public address, and the spec was fetched by URL from one (${displayUrl(specUrl)}): its author chose that server, which could be this machine or your network. Nothing was sent. To call it, pass --base-url, or serve a downloaded copy of the spec.`,
      ),
  };
}
