import { describe, expect, it } from 'vitest';
import { parseIpAddress } from './ip-address.ts';
import { createNetworkList, invalidNetworks, parseNetwork, splitNetworkList } from './networks.ts';

const ip = (text: string) => {
  const address = parseIpAddress(text);
  if (!address) throw new Error(`bad test address ${text}`);
  return address;
};

describe('CIDR networks', () => {
  it('matches addresses inside the prefix only', () => {
    const list = createNetworkList(['10.0.0.0/8', '192.0.2.7', '2001:db8::/32']);
    expect(list.contains(ip('10.255.1.2'))).toBe(true);
    expect(list.contains(ip('11.0.0.1'))).toBe(false);
    expect(list.contains(ip('192.0.2.7'))).toBe(true);
    expect(list.contains(ip('192.0.2.8'))).toBe(false);
    expect(list.contains(ip('2001:db8:ffff::1'))).toBe(true);
    expect(list.contains(ip('2001:db9::1'))).toBe(false);
  });

  it('matches IPv4-mapped IPv6 addresses against IPv4 networks, and mapped networks as IPv4', () => {
    expect(createNetworkList(['127.0.0.0/8']).contains(ip('::ffff:127.0.0.1'))).toBe(true);
    expect(createNetworkList(['::ffff:10.0.0.0/104']).contains(ip('10.1.2.3'))).toBe(true);
  });

  it('ignores host bits and accepts /0', () => {
    expect(parseNetwork('10.1.2.3/8')).toEqual({ version: 4, prefix: 8, base: 10n << 24n });
    expect(createNetworkList(['0.0.0.0/0']).contains(ip('8.8.8.8'))).toBe(true);
    expect(createNetworkList(['0.0.0.0/0']).contains(ip('::2'))).toBe(false);
  });

  it('names the entries that are not networks', () => {
    expect(invalidNetworks(['10.0.0.0/33', '10.0.0.0/8', 'fe80::/129', 'proxy.local', '1.2.3.4/x', '1.2.3.4/8/9'])).toEqual([
      '10.0.0.0/33',
      'fe80::/129',
      'proxy.local',
      '1.2.3.4/x',
      '1.2.3.4/8/9',
    ]);
    expect(() => createNetworkList(['nope'])).toThrow(/nope/);
  });

  it('splits comma lists and files with comments', () => {
    expect(splitNetworkList(' 10.0.0.0/8 , ,::1')).toEqual(['10.0.0.0/8', '::1']);
    expect(splitNetworkList('# VPN exits\n198.51.100.0/24  # provider A\n\n2001:db8::/32\n')).toEqual(['198.51.100.0/24', '2001:db8::/32']);
  });
});
