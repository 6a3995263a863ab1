/** Where a request came from: the TCP peer address, as the socket reports it. */
export interface Peer {
  address?: string;
}

import { isIP } from 'node:net';

/**
 * Whose quotas (calls and sessions at once) an anonymous request counts against: its peer address,
 * with an IPv6 address widened to its /64. One IPv6 host usually holds a whole /64 and can pick a
 * fresh source address per connection: keyed per address it would get a quota per address, and
 * many one-session "callers" would make the session table's fair share evict real users' sessions.
 */
export function peerQuotaKey(address: string | undefined): string {
  const unmapped = unmapIPv4(address);
  if (!unmapped) return 'address:unknown';
  const bare = unmapped.split('%')[0] ?? unmapped; // a link-local zone (fe80::1%eth0) names no host
  if (isIP(bare) !== 6) return `address:${unmapped}`;
  return `address:${prefix64(bare)}`;
}

/** A peer address as IPv4 when a dual-stack socket reports an IPv4 client as `::ffff:a.b.c.d`. */
export function unmapIPv4(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

// The first four groups of an IPv6 address, `::` expanded, as `a:b:c:d::/64`.
function prefix64(address: string): string {
  const groupsIn = (part: string) => (part === '' ? [] : part.split(':'));
  const [head = '', tail] = address.split('::');
  const front = groupsIn(head);
  let groups = front;
  if (tail !== undefined) {
    const back = groupsIn(tail);
    // A dotted IPv4 tail (64:ff9b::1.2.3.4) fills two groups.
    const backWidth = back.reduce((width, group) => width + (group.includes('.') ? 2 : 1), 0);
    groups = [...front, ...Array<string>(Math.max(0, 8 - front.length - backWidth)).fill('0'), ...back];
  }
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
