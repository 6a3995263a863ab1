import type { Socket } from 'node:net';
import { peerQuotaKey } from './peer-quota-key.js';

/**
 * Counts the open connections of each peer address (an IPv6 address by its /64, see
 * `peerQuotaKey`), so that one address cannot hold every connection the server allows: before a
 * request is authenticated its address is all there is to count by, and a client that sends its
 * headers slowly, or opens streams that never end, would otherwise lock everyone else out.
 */
export class AddressConnections {
  readonly #open = new Map<string, number>();
  readonly #max: number;
  readonly #uncounted: (address: string | undefined) => boolean;

  /**
   * `uncounted`: addresses whose connections are not capped, a trusted reverse proxy's: every
   * caller behind it arrives from its address, so a cap would let a few hundred of them in.
   */
  constructor(maxPerAddress: number, uncounted: (address: string | undefined) => boolean = () => false) {
    this.#max = maxPerAddress;
    this.#uncounted = uncounted;
  }

  /** Counts `socket` until it closes; `false` (nothing counted) when its address has its maximum open. */
  admit(socket: Socket): boolean {
    if (this.#uncounted(socket.remoteAddress)) return true;
    const key = peerQuotaKey(socket.remoteAddress);
    const open = this.#open.get(key) ?? 0;
    if (open >= this.#max) return false;
    this.#open.set(key, open + 1);
    socket.once('close', () => {
      const left = (this.#open.get(key) ?? 1) - 1;
      if (left <= 0) this.#open.delete(key);
      else this.#open.set(key, left);
    });
    return true;
  }
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
