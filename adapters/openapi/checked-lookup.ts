import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { buildConnector } from 'undici';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A connection's own lookup that refuses a name when any address it resolves to is not allowed,
 * with `refuse`'s error: the socket can only connect to an address that was checked, so a name
 * cannot resolve one way for a check and another for the connection.
 */
function checkedLookup(
  allow: (address: string) => boolean,
  refuse: (address: string, name: string) => Error,
) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    // Node's resolver is loaded with the first connection, not with the bridge.
    process.getBuiltinModule('node:dns').lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find(({ address }) => !allow(address));
      if (refused) return callback(refuse(refused.address, hostname) as NodeJS.ErrnoException, []);
      const [firstAddress] = addresses;
      if (options.all) return callback(null, addresses);
      if (!firstAddress)
        return callback(new Error(`${hostname} has no address`) as NodeJS.ErrnoException, []);
      callback(null, firstAddress.address, firstAddress.family);
    });
  };
}

/**
 * undici's `connect` for an Agent whose every connection goes only to allowed addresses: a host
 * written as an address is checked before connecting (no lookup happens for it), a name by every
 * address it resolves to as the connection is made. Being the connection itself, it checks every
 * request of the Agent, a redirect's included; `refuse`'s error fails the request. `build` is
 * undici's `buildConnector` (undici is loaded lazily by its users).
 */
export function checkedConnector(
  build: typeof buildConnector,
  allow: (address: string) => boolean,
  refuse: (address: string, name?: string) => Error,
): buildConnector.connector {
  const connect = build({ lookup: checkedLookup(allow, refuse) });
  return (options, callback) => {
    const refused = refusedAddress(options.hostname, allow, refuse);
    if (refused) callback(refused, null);
    else connect(options, callback);
  };
}

/**
 * undici's `connect` that records the address of every connection it makes (`onConnected`), for a
 * fetch whose origin matters afterwards: what was connected to, not what a second lookup says.
 */
export function recordingConnector(
  build: typeof buildConnector,
  onConnected: (address: string | undefined) => void,
): buildConnector.connector {
  const connect = build({});
  return (options, callback) =>
    connect(options, (...args) => {
      const [, socket] = args;
      if (socket) onConnected(socket.remoteAddress);
      callback(...args);
    });
}

/**
 * `refuse`'s error when a host (a URL's `hostname`, `[::1]` included) is written as an address that
 * is not allowed; undefined for an allowed address or a name (a name is checked by its lookup).
 */
export function refusedAddress(
  hostname: string,
  allow: (address: string) => boolean,
  refuse: (address: string) => Error,
): Error | undefined {
  const host = hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 && !allow(host) ? refuse(host) : undefined;
}
