import { isIP } from 'node:net';

/** An IP address as a number: IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) count as IPv4. */
export type IpAddress = {
  readonly version: 4 | 6;
  readonly value: bigint;
  /** Canonical text: dotted quad, or the IPv6 address lower-cased without a zone. */
  readonly text: string;
};

const mappedPrefix = 0xffffn << 32n;

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function ipv4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

function ipv6Value(text: string): bigint {
  let address = text;
  // A trailing dotted quad stands for the last two groups.
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = ipv4Value(tail);
    address = `${address.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':').map((g) => parseInt(g, 16));
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':').map((g) => parseInt(g, 16));
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  return [...headGroups, ...Array<number>(zeros).fill(0), ...restGroups].reduce((n, g) => (n << 16n) | BigInt(g), 0n);
}

/** Parses one address; null for anything that is not exactly an IP address. */
export function parseIpAddress(input: string): IpAddress | null {
  const text = input.trim();
  const kind = isIP(text);
  if (kind === 4) {
    const value = ipv4Value(text);
    return { version: 4, value, text: ipv4Text(value) };
  }
  if (kind === 6) {
    const withoutZone = text.split('%')[0] ?? text;
    const value = ipv6Value(withoutZone.toLowerCase());
    if (value >> 32n === mappedPrefix >> 32n) {
      const v4 = value & 0xffffffffn;
      return { version: 4, value: v4, text: ipv4Text(v4) };
    }
    return { version: 6, value, text: withoutZone.toLowerCase() };
  }
  return null;
}

/**
 * An address as proxies write it into X-Forwarded-For or as a socket reports it: may carry
 * brackets and a port (`[2001:db8::1]:443`, `203.0.113.7:8080`).
 */
export function parseHostAddress(input: string): IpAddress | null {
  const text = input.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed?.[1]) return parseIpAddress(bracketed[1]);
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(text);
  if (v4WithPort?.[1]) return parseIpAddress(v4WithPort[1]);
  return parseIpAddress(text);
}
