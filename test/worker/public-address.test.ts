import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/worker/public-address.js';

/**
 * The addresses the egress proxy takes an allowed name to (docs/worker.md, "The agent's
 * network"): public hosts', and no other; the proxy with a resolver of its own:
 * test/worker/egress-proxy.test.ts.
 */
describe('isPublicAddress', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '140.82.112.3',
    '93.184.215.14',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    // An IPv4 address in IPv6 clothes, and through NAT64 (an IPv6-only runner's resolver).
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ['169.254.169.254', 'link-local: cloud metadata'],
    ['169.254.0.1', 'link-local'],
    ['fd00:ec2::254', 'unique-local: cloud metadata'],
    ['fc00::1', 'unique-local'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local, with its zone'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'IPv6 loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network'],
    ['::', 'IPv6 unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['ff02::1', 'IPv6 multicast'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, in hex'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::10.0.0.1', 'IPv4-compatible (deprecated)'],
    ['64:ff9b::a9fe:a9fe', 'metadata through NAT64'],
    ['64:ff9b::10.0.0.1', 'private through NAT64'],
    ['64:ff9b:1::808:808', 'NAT64 for local use'],
    ['2002:a9fe:a9fe::1', '6to4'],
    ['2001::1', 'Teredo'],
    ['not-an-address', 'no address'],
  ])('%s is not (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});
