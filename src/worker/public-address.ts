import { BlockList, isIP } from 'node:net';

/**
 * Whether an address the egress proxy resolved is one of the public internet's (docs/worker.md,
 * "The agent's network"): an allowed name whose answer is the runner's loopback, its cloud's
 * metadata service (169.254.169.254, fd00:ec2::254) or a network the runner sits in is refused, so
 * that a name under an allowed `*.` pattern, or one rebound, does not take the agent there. The
 * ranges are IANA's special-purpose registries' (RFC 6890) that are not globally reachable.
 */

/** IPv4 ranges no public host has. */
const NOT_PUBLIC_V4: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 itself
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local: cloud metadata services
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 3], // multicast, reserved, broadcast
];

/** IPv6 ranges inside the unicast space below that no public host has. */
const NOT_PUBLIC_V6: readonly [string, number][] = [
  ['64:ff9b:1::', 48], // NAT64 for local use
  ['2001::', 23], // IETF protocol assignments, Teredo among them
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4, whose IPv4 address inside goes unchecked
  ['3fff::', 20], // documentation
];

/**
 * Where public addresses are: IPv4 (a BlockList checks an IPv4 address as its IPv4-mapped IPv6
 * form, and the reverse), IPv4 through NAT64 (RFC 6052), and IPv6 global unicast. Outside it:
 * `::`, `::1`, unique-local `fc00::/7` (`fd00:ec2::254`), link-local `fe80::/10`, multicast.
 */
const UNICAST = new BlockList();
UNICAST.addSubnet('::ffff:0.0.0.0', 96, 'ipv6');
UNICAST.addSubnet('64:ff9b::', 96, 'ipv6');
UNICAST.addSubnet('2000::', 3, 'ipv6');

const NOT_PUBLIC = new BlockList();
for (const [address, prefix] of NOT_PUBLIC_V4) {
  NOT_PUBLIC.addSubnet(address, prefix, 'ipv4');
  // The same range through NAT64: the gateway would take the agent there.
  NOT_PUBLIC.addSubnet(`64:ff9b::${address}`, 96 + prefix, 'ipv6');
}
for (const [address, prefix] of NOT_PUBLIC_V6) NOT_PUBLIC.addSubnet(address, prefix, 'ipv6');

/** Whether `address` (an IP address, as a resolver answers) is a public host's. */
export function isPublicAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 0) return false;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  return UNICAST.check(address, family) && !NOT_PUBLIC.check(address, family);
}
