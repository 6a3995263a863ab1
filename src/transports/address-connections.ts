import type { Socket } from 'node:net';
import { CallLimits } from './call-limits.js';
import { peerQuotaKey } from './peer-quota-key.js';

/**
 * Counts the open connections of each peer address (an IPv6 address by its /64, see
 * `peerQuotaKey`), so that one address cannot hold every connection the server allows: before a
 * request is authenticated its address is all there is to count by, and a client that sends its
 * headers slowly, or opens streams that never end, would otherwise lock everyone else out. The
 * returned `admit` counts a socket until it closes, or says `false` (nothing counted) when its
 * address has its maximum open. `uncounted` addresses are not capped: a trusted reverse proxy's,
 * since every caller behind it arrives from its address.
 */
export function connectionsPerAddress(
  maxPerAddress: number,
  uncounted: (address: string | undefined) => boolean = () => false,
): (socket: Socket) => boolean {
  const open = new CallLimits(maxPerAddress);
  return (socket) => {
    if (uncounted(socket.remoteAddress)) return true;
    const release = open.acquire(peerQuotaKey(socket.remoteAddress), 1);
    if (!release) return false;
    socket.once('close', release);
    return true;
  };
}

/** The answer written straight to a connection refused on accept, before any request is read. */
export function tooManyConnections(maxPerAddress: number): string {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    error: {
      code: -32000,
      message: `Service Unavailable: ${maxPerAddress} connections from this address are open already; close some or retry later`,
    },
    id: null,
  });
  return [
    'HTTP/1.1 503 Service Unavailable',
    'content-type: application/json',
    'retry-after: 5',
    'connection: close',
    `content-length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');
}
