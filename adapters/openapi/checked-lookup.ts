import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A connection's own lookup (undici's `connect.lookup`) that refuses a name when any address it
 * resolves to is not allowed, with `refuse`'s error: the socket can only connect to an address that
 * was checked, so a name cannot resolve one way for a check and another for the connection. An
 * address written in a URL is connected to without a lookup: check it before sending.
 */
export function checkedLookup(
  allow: (address: string) => boolean,
  refuse: (address: string, name: string) => Error,
) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
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
 * The IP address a URL names as its host (`http://10.0.0.1/`, `http://[::1]/`), or undefined for
 * a name. Such an address is connected to without a lookup: `checkedLookup` never sees it, so it is
 * checked before sending.
 */
export function addressInUrl(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) === 0 ? undefined : host;
}
