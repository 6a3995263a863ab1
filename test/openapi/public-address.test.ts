import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../adapters/openapi/public-address.js';

// What a remote `$ref` may connect to: public unicast addresses only, however an address of this
// machine or its network is written.
describe('public addresses', () => {
  it.each([
    '127.0.0.1',
    '127.9.9.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'fe80::1',
    'fd00::1',
    'ff02::1',
    '64:ff9b::7f00:1',
    '64:ff9b::169.254.169.254',
    '2002:c0a8:101::1',
    '::ffff:0:a9fe:a9fe',
    '::ffff:0:127.0.0.1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    'fec0::1',
    'not an address',
    'localhost',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '140.82.112.3',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '::ffff:0:808:808',
    '2001:4860:4860::8888',
  ])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
