import { describe, expect, it } from 'vitest';
import { hostAllowed, hostPattern } from '../../src/protocol/network.js';

/** The worker's proxy matches each host the agent asks for against worker.network.allow. */
describe('hostAllowed', () => {
  const allow = ['registry.npmjs.org', '*.githubusercontent.com', '198.51.100.7', '2001:db8::1'];
  it.each([
    // Exact names, in any case and with the final dot a resolver takes.
    ['registry.npmjs.org', true],
    ['REGISTRY.npmjs.ORG', true],
    ['registry.npmjs.org.', true],
    ['npmjs.org', false],
    ['evil-registry.npmjs.org', false],
    ['registry.npmjs.org.evil.com', false],
    // `*.` takes every name under it, at any depth, and not the name itself.
    ['raw.githubusercontent.com', true],
    ['a.b.githubusercontent.com', true],
    ['githubusercontent.com', false],
    ['evilgithubusercontent.com', false],
    // IP addresses only as listed, in any spelling of the same address.
    ['198.51.100.7', true],
    ['198.51.100.8', false],
    ['2001:db8::1', true],
    ['[2001:DB8:0:0::1]', true],
    ['::1', false],
    // What the resolver reads as an address (inet_aton) is no name that a pattern takes.
    ['3325256711', false],
    ['0xc6.0x33.0x64.7', false],
    ['198.51.100.007', false],
    ['', false],
    ['a.com/x', false],
  ])('%j: %s', (host, allowed) => {
    expect(hostAllowed(allow, host)).toBe(allowed);
  });

  it('takes any host with `*`, and none with an empty list', () => {
    for (const host of ['example.com', '203.0.113.9', '::1'])
      expect([hostAllowed(['*'], host), hostAllowed([], host)]).toEqual([true, false]);
  });
});

describe('hostPattern', () => {
  it.each([
    ['*', '*'],
    [' Example.COM. ', 'example.com'],
    ['*.Example.com', '*.example.com'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['[::1]', '::1'],
    ['*.198.51.100.7', undefined],
    ['*.*.example.com', undefined],
    ['example.com:443', undefined],
    ['https://example.com', undefined],
    ['127.1', undefined],
  ])('%j is %j', (text, pattern) => {
    expect(hostPattern(text)).toBe(pattern);
  });
});
