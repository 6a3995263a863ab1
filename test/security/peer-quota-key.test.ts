import { describe, expect, it } from 'vitest';
import { peerQuotaKey } from '../../src/transports/peer-quota-key.js';

// Anonymous HTTP callers are told apart by address for their call and session quotas.
describe('the quota key of an anonymous peer', () => {
  it('is the IPv4 address, also when a dual-stack socket reports it IPv4-mapped', () => {
    expect(peerQuotaKey('203.0.113.7')).toBe('address:203.0.113.7');
    expect(peerQuotaKey('::ffff:203.0.113.7')).toBe('address:203.0.113.7');
  });

  it('is the /64 of an IPv6 address, so one host cannot take a quota per address it picks', () => {
    const keys = [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0db8:0001:0002:abcd::9',
      'fe80::1%eth0',
    ].map(peerQuotaKey);
    expect(keys.slice(0, 3)).toEqual(Array(3).fill('address:2001:db8:1:2::/64'));
    expect(keys[3]).toBe('address:fe80:0:0:0::/64');
    expect(peerQuotaKey('2001:db8:1:3::1')).toBe('address:2001:db8:1:3::/64');
    expect(peerQuotaKey('::1')).toBe('address:0:0:0:0::/64');
    expect(peerQuotaKey('64:ff9b::198.51.100.1')).toBe('address:64:ff9b:0:0::/64');
  });

  it('is one shared key when the socket reports no address', () => {
    expect(peerQuotaKey(undefined)).toBe('address:unknown');
  });
});
