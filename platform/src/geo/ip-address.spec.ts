import { describe, expect, it } from 'vitest';
import { parseHostAddress, parseIpAddress } from './ip-address.ts';

describe('IP addresses', () => {
  it('parses IPv4 and IPv6 to numbers', () => {
    expect(parseIpAddress('1.2.3.4')).toEqual({ version: 4, value: 0x01020304n, text: '1.2.3.4' });
    expect(parseIpAddress('2001:DB8::1')).toEqual({ version: 6, value: (0x20010db8n << 96n) | 1n, text: '2001:db8::1' });
    expect(parseIpAddress('::')?.value).toBe(0n);
    expect(parseIpAddress('1:2:3:4:5:6:7:8')?.value).toBe(0x00010002000300040005000600070008n);
    expect(parseIpAddress('64:ff9b::1.2.3.4')?.value).toBe((0x64ff9bn << 96n) | 0x01020304n);
  });

  it('treats IPv4-mapped IPv6 as IPv4 and drops zones', () => {
    expect(parseIpAddress('::ffff:80.128.0.1')).toEqual({ version: 4, value: parseIpAddress('80.128.0.1')?.value, text: '80.128.0.1' });
    expect(parseIpAddress('::ffff:5080:1')?.text).toBe('80.128.0.1');
    expect(parseIpAddress('fe80::1%eth0')?.text).toBe('fe80::1');
  });

  it('refuses what is not exactly an address', () => {
    for (const bad of ['', 'localhost', '1.2.3', '1.2.3.256', '1.2.3.4/8', '::g', 'unknown']) expect(parseIpAddress(bad)).toBeNull();
  });

  it('reads addresses with brackets and ports as proxies write them', () => {
    expect(parseHostAddress('[2001:db8::1]:443')?.text).toBe('2001:db8::1');
    expect(parseHostAddress('[::1]')?.text).toBe('::1');
    expect(parseHostAddress('203.0.113.7:8080')?.text).toBe('203.0.113.7');
    expect(parseHostAddress(' 8.8.8.8 ')?.text).toBe('8.8.8.8');
    expect(parseHostAddress('_hidden')).toBeNull();
  });
});
