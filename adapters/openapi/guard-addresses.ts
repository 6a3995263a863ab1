import { BridgeError, displayUrl } from '../../src/index.js';
import { isPublicAddress } from './public-address.js';

/** Which addresses a source's calls may connect to, and the error for one they may not. */
export interface AddressGuard {
  allow(address: string): boolean;
  refuse(address: string, name?: string): BridgeError;
}

/**
 * The guard of a spec fetched by URL, served without `--base-url`, unless every connection of its
 * fetch (`fetchedFrom`, see `LoadedDocument`) went to an address that is not public (an internal
 * spec server naming internal APIs): its calls then connect to public addresses only. Its author,
 * somewhere on the internet, chose its servers, not the user: a top-level server at
 * 169.254.169.254, on `localhost` or on the user's network (or a name resolving there, checked as
 * each connection is made) would turn each tool into a request inside the user's network, carrying
 * the user's credentials. A fetch that recorded no address (or an unknown one) is guarded.
 */
export function guardFetchedSpec(
  specUrl: string,
  fetchedFrom: readonly string[],
  isPublic: (address: string) => boolean = isPublicAddress,
): AddressGuard | undefined {
  const internal =
    fetchedFrom.length > 0 && fetchedFrom.every((address) => address !== '' && !isPublic(address));
  if (internal) return undefined;
  return {
    allow: isPublic,
    refuse: (address, name) =>
      new BridgeError(
        'invalid_input',
        `the server ${name ? `${name} (${address})` : address} is not a public address, and the spec was fetched by URL from one (${displayUrl(specUrl)}): its author chose that server, which could be this machine or your network. Nothing was sent. To call it, pass --base-url, or serve a downloaded copy of the spec.`,
      ),
  };
}
