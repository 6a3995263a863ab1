import { BlockList, isIP } from 'node:net';

// Addresses a reference in a spec may not make the bridge fetch from: whatever is not on the
// public internet (this host, the local network, link-local cloud metadata services such as
// 169.254.169.254) or not unicast. The spec's author chooses its references, the user running the
// bridge does not: a spec from elsewhere must not reach the user's network through them.
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo: reaches an IPv4 address it carries obfuscated
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed inside some sites)
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/**
 * Whether `address` (an IPv4 or IPv6 literal) is a public unicast address. An IPv4-mapped IPv6
 * address (`::ffff:127.0.0.1`) is judged as the IPv4 address it maps; anything that is not an IP
 * address is not public.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6')) return false;
  // NAT64 (64:ff9b::/96), SIIT (::ffff:0:0:0/96) and 6to4 (2002::/16) addresses reach the IPv4
  // address they carry.
  const embedded = family === 6 ? embeddedIPv4(address) : undefined;
  return embedded === undefined || isPublicAddress(embedded);
}

// The IPv4 address a NAT64, SIIT or 6to4 address carries, or undefined.
function embeddedIPv4(address: string): string | undefined {
  const groups = hextets(address);
  if (!groups) return undefined;
  const nat64 =
    groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0);
  const siit = groups.slice(0, 4).every((group) => group === 0) && groups[4] === 0xffff && groups[5] === 0;
  const [high, low] =
    nat64 || siit ? [groups[6], groups[7]] : groups[0] === 0x2002 ? [groups[1], groups[2]] : [];
  if (high === undefined || low === undefined) return undefined;
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

// The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included), or undefined.
function hextets(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  return [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right].map((group) =>
    Number.parseInt(group, 16),
  );
}
