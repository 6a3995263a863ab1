import { BlockList, isIP } from 'node:net';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { BridgeError } from '../errors.js';
import { type Peer, unmapIPv4 } from '../transports/peer-quota-key.js';

export interface IdentityHeaderOptions {
  /** The header an authenticating reverse proxy sets to the user's name, e.g. `X-Forwarded-User`. */
  header: string;
  /** Addresses (`10.0.0.5`, `::1`) and networks (`10.0.0.0/8`) of the proxies trusted to set it. */
  trustedProxies: readonly string[];
}

/** What the identity header says about one request. */
export type ProxyIdentity =
  | { kind: 'none' }
  | { kind: 'user'; authInfo: AuthInfo }
  | { kind: 'refused'; status: 400 | 403; message: string };

// Headers a proxy identity must never be read from: they mean something else to HTTP or to MCP.
const RESERVED = new Set(['authorization', 'host', 'cookie', 'content-type', 'content-length']);

/**
 * Reads the caller's identity from a header set by an authenticating reverse proxy (oauth2-proxy,
 * Pomerium, an ingress with forward auth). Only the listed proxy addresses may talk to the bridge:
 * a request from anywhere else is refused (403), so a client that bypasses the proxy can neither
 * pose as a user nor be served unauthenticated. A request from a proxy without the header (a path
 * the proxy lets through unauthenticated) is anonymous.
 */
export function proxyIdentity(
  options: IdentityHeaderOptions,
): (request: Request, peer: Peer) => ProxyIdentity {
  const header = checkHeaderName(options.header);
  if (options.trustedProxies.length === 0) {
    throw new BridgeError(
      'invalid_input',
      `--trust-identity-header ${options.header} needs --trusted-proxy ADDRESS: the addresses of the proxies allowed to set it`,
    );
  }
  const trusted = trustedProxies(options.trustedProxies);
  return (request, peer) => {
    const address = unmapIPv4(peer.address);
    // The proxy is what authenticates: a request that reached the bridge around it is refused
    // whole (with or without the header), not served anonymously.
    if (address === undefined || !trusted(address)) {
      return {
        kind: 'refused',
        status: 403,
        message: `Forbidden: this server is reached through its authenticating proxy; ${address ?? 'an unknown address'} is not a trusted proxy (--trusted-proxy)`,
      };
    }
    const value = request.headers.get(header);
    if (value === null) return { kind: 'none' };
    const user = value.trim();
    // Headers.get joins repeated headers with ", ": a proxy that appends instead of replacing would
    // let the client's own value through, so more than one value is refused.
    if (user === '' || user.length > 256 || user.includes(',') || hasControlCharacter(user)) {
      return {
        kind: 'refused',
        status: 400,
        message: `Bad Request: ${options.header} must carry exactly one user name (1-256 characters, no commas or control characters)`,
      };
    }
    return {
      kind: 'user',
      authInfo: { token: '', clientId: user, scopes: [], extra: { subject: user, via: 'proxy' } },
    };
  };
}

function checkHeaderName(name: string): string {
  const lower = name.trim().toLowerCase();
  if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(lower) || RESERVED.has(lower)) {
    throw new BridgeError(
      'invalid_input',
      `--trust-identity-header expects a header name such as X-Forwarded-User, got "${name}"`,
    );
  }
  return lower;
}

/**
 * Whether a peer address is one of the `--trusted-proxy` values (an IPv4/IPv6 address or a
 * network in CIDR notation; an IPv4 client of a dual-stack socket counts by its IPv4 address).
 * Throws naming a value that is neither.
 */
export function trustedProxies(values: readonly string[]): (address: string | undefined) => boolean {
  const list = trustedAddresses(values);
  return (peer) => {
    const address = unmapIPv4(peer);
    return address !== undefined && list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  };
}

function trustedAddresses(values: readonly string[]): BlockList {
  const list = new BlockList();
  for (const value of values) {
    const [address = '', prefix, ...rest] = value.trim().split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? undefined : Number(prefix);
    const max = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      rest.length > 0 ||
      (bits !== undefined && (!Number.isInteger(bits) || bits < 0 || bits > max))
    ) {
      throw new BridgeError(
        'invalid_input',
        `--trusted-proxy expects an IP address or a network such as 10.0.0.0/8, got "${value}"`,
      );
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return list;
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
